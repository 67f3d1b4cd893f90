# Copy a 256 MiB bytearray into another, eight times: a program whose
# copies are large ("ntmem run --report -- python3 copy256.py").
a = bytearray(256 << 20)
b = bytearray(b"\x5a" * (256 << 20))
for _ in range(8):
    a[:] = b
print(sum(a[::1 << 20]))
