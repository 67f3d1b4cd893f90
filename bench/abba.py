#!/usr/bin/env python3
"""abba.py - a real program natively against under `ntmem run`, a fresh
process each time, in ABBA order (native, shim, shim, native, ...): on
some hosts successive processes alternate between a fast and a slow
state, and a plain alternation puts each arm on one state.

    bench/abba.py [-n ROUNDS] [--ntmem PATH] [--lower] METRIC -- CMD ARGS...

METRIC is a regular expression whose first group is the program's own
figure (e.g. '([0-9.]+) GB/sec' for perf bench), higher is better unless
--lower (a time).  Prints each arm's median and spread and the ratio of
medians, shim over native, as speed (above 1: the shim is faster).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys


def figure(cmd, pattern, env):
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, check=False)
    m = re.search(pattern, out.stdout)
    if not m:
        sys.exit("abba: no match for %r in the output of %s:\n%s"
                 % (pattern, " ".join(cmd), out.stdout[-2000:]))
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("-n", "--rounds", type=int, default=5,
                    help="ABBA rounds (2 runs an arm each; default 5)")
    ap.add_argument("--ntmem", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "ntmem"))
    ap.add_argument("--lower", action="store_true",
                    help="the figure is a time: lower is better")
    ap.add_argument("metric")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command")
    env = dict(os.environ)
    env.setdefault("NTMEM_PROFILE", "none")
    native, shim = [], []
    for _ in range(a.rounds):
        for arm in ("A", "B", "B", "A"):
            if arm == "A":
                native.append(figure(cmd, a.metric, env))
            else:
                shim.append(figure([a.ntmem, "run", "--"] + cmd, a.metric, env))
    mn, ms = statistics.median(native), statistics.median(shim)
    ratio = mn / ms if a.lower else ms / mn
    def spread(xs):
        return "%.4g-%.4g" % (min(xs), max(xs))
    print("%s: native %.4g (%s), shim %.4g (%s), %d runs an arm; "
          "shim/native speed %.3f" % (" ".join(cmd), mn, spread(native), ms,
                                     spread(shim), len(native), ratio))


if __name__ == "__main__":
    main()
