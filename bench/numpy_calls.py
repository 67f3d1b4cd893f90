#!/usr/bin/env python3
"""numpy_calls.py OP MIB - nine numpy calls on fresh arrays of MIB MiB, as
a short program makes them, first touch included; prints their total
time: "seconds S".  OP: fill0 (a.fill(0)), fill5a (a.fill(0x5a)),
copyto (np.copyto(b, a)).  For bench/abba.py."""
import sys
import time

import numpy as np

op, mib = sys.argv[1], int(sys.argv[2])
n = mib << 20
a = np.empty(n, dtype=np.uint8)
b = np.empty(n, dtype=np.uint8)
if op == "copyto":
    a.fill(7)
t0 = time.perf_counter()
for _ in range(9):
    if op == "fill0":
        a.fill(0)
    elif op == "fill5a":
        a.fill(0x5a)
    else:
        np.copyto(b, a)
print("seconds %.6f" % (time.perf_counter() - t0))
