# Random lookups in a dict of 300 000 entries (about 30 MiB with its ints):
# a victim for "ntmem pollution --victim -- python3 lookups.py".
import random
random.seed(1)
table = {i: i * 3 for i in range(300000)}
keys = [random.randrange(300000) for _ in range(700000)]
total = 0
for k in keys:
    total += table[k]
print(total)
