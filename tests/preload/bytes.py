# bytes.py - CPython copying and clearing memory every way a program
# does: bytes, bytearray, memoryview, slicing, joining, repeating.  Prints
# a SHA-256 per section; test_preload compares the output with and without
# the shim ("ntmem run --stream-above 0"), where every copy and clear
# beyond the small path streams.
import hashlib
import sys

SIZES = (0, 1, 7, 63, 64, 65, 511, 513, 4096 + 3, 65536 + 1,
         (1 << 20) + 5, (6 << 20) + 11)


def pattern(n, seed):
    """n bytes that differ at every offset, made by doubling copies."""
    out = bytearray(((i * 131 + seed) & 0xFF for i in range(min(n, 4096))))
    while len(out) < n:
        out += out[: n - len(out)]
    return bytes(out)


def section(name, parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    print(f"{name} {h.hexdigest()}")


def with_bytes(n):
    b = pattern(n, 1)
    yield b + b[: n // 3]
    yield b[1::3] + b[::-1][:n // 2]
    yield b"\x00" * n + b"\xa5" * (n // 2)
    yield b.replace(b"\x00", b"zero")
    yield b"-".join([b[i:i + 1000] for i in range(0, n, 777)])


def with_bytearray(n):
    a = bytearray(pattern(n, 2))
    a[1:n // 2] = a[n // 2 + 1:]          # overlapping move, shrinking
    yield bytes(a)
    a[5:5] = a[: n // 4]                  # insertion: memmove up
    yield bytes(a)
    del a[3: 3 + n // 5]                  # deletion: memmove down
    yield bytes(a)
    z = bytearray(n)                      # zeroed
    z[n // 3:] = pattern(n - n // 3, 3)
    yield bytes(z)
    a.extend(z)
    yield bytes(a * 2)


def with_memoryview(n):
    a = bytearray(pattern(n, 4))
    m = memoryview(a)
    m[n // 2:] = m[: n - n // 2].tobytes()
    yield m.tobytes()
    yield bytes(m[::2]) + bytes(m[1::5])
    c = m.cast("B")
    yield bytes(c[7: n - 7])


for n in SIZES:
    section(f"bytes {n}", list(with_bytes(n)))
    section(f"bytearray {n}", list(with_bytearray(n)))
    section(f"memoryview {n}", list(with_memoryview(n)))
lists = [pattern(n, 5) for n in SIZES] * 3
section("list", [b"".join(lists), bytes(bytearray().join(lists[::-1]))])
sys.stdout.flush()
