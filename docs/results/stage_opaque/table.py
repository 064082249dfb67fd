#!/usr/bin/env python3
"""table.txt from ab.txt (device.sh's lines): each transform, layer, batch and layout with both builds' graph
times over the two runs (range), the change of their means, and cuDNN's range. Usage: table.py ab.txt"""
import re, sys
from collections import defaultdict

rows = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'run (\d) (\w+)\s+(\S+)\s+(\S+) (\S+) b(\d+) (\S+) graph ([\d.]+) us, cuDNN ([\d.]+)', line)
    _, build, transform, net, layer, batch, layout, us, cudnn = m.groups()
    rows[(transform, f"{net} {layer}", int(batch), layout.replace('-f', ''))].append((build, float(us), float(cudnn)))


def span(v):
    lo, hi = f"{min(v):.1f}", f"{max(v):.1f}"
    return lo if lo == hi else f"{lo}-{hi}"


print('| transform | layer | batch | layout | base µs | opaque µs | change | cuDNN µs |')
print('|---|---|---|---|---|---|---|---|')
for key in sorted(rows, key=lambda k: (k[0], k[1], -k[2], k[3])):
    base = [us for b, us, _ in rows[key] if b == 'base']
    new = [us for b, us, _ in rows[key] if b == 'opaque']
    change = (sum(new) / len(new)) / (sum(base) / len(base)) - 1
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {span(base)} | {span(new)} | {change * 100:+.1f} % | "
          f"{span([c for _, _, c in rows[key]])} |")
