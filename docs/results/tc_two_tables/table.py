#!/usr/bin/env python3
"""table.txt from device.sh's ab.txt files: each transform and layer (NHWC, the wgmma kernel forced) with every
build's graph times over the runs (range) and the change of its mean from the base build's, and cuDNN's range.
Usage: table.py r/ab.txt r2/ab.txt r3/ab.txt"""
import re
import sys
from collections import defaultdict

BUILDS = ["base", "terms", "skip", "rows"]
rows = defaultdict(lambda: defaultdict(list))
cudnn = defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r'run (\d) (\w+)\s+(\S+)\s+(\S+) (\S+) b(\d+) (\S+) graph ([\d.]+) us, cuDNN ([\d.]+)', line)
        _, build, transform, net, layer, batch, _, us, dnn = m.groups()
        key = (transform, f"{net} {layer}", int(batch))
        rows[key][build].append(float(us))
        cudnn[key].append(float(dnn))


def span(v):
    lo, hi = f"{min(v):.1f}", f"{max(v):.1f}"
    return lo if lo == hi else f"{lo}-{hi}"


def mean(v):
    return sum(v) / len(v)


print("| transform | layer | batch | " + " | ".join(f"{b} µs" for b in BUILDS) + " | cuDNN µs |")
print("|---|---|---|" + "---|" * len(BUILDS) + "---|")
for key in sorted(rows, key=lambda k: (k[0], k[1], -k[2])):
    builds = rows[key]
    cells = []
    for b in BUILDS:
        if not builds[b]:
            cells.append("")
        elif b == "base":
            cells.append(f"{span(builds[b])} ({len(builds[b])})")
        else:
            cells.append(f"{span(builds[b])} ({len(builds[b])}, {(mean(builds[b]) / mean(builds['base']) - 1) * 100:+.1f} %)")
    print(f"| {key[0]} | {key[1]} | b{key[2]} | " + " | ".join(cells) + f" | {span(cudnn[key])} |")
