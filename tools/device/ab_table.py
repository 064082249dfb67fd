#!/usr/bin/env python3
"""The A/B lines of tools/device/ab_stages.sh (ab.txt) as one row per layer and layout: both runs of
each build (graph replay, µs) and the new build's sum over the base build's, minus one.

  ab_table.py ab.txt
"""
import collections
import re
import sys

times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (\S+) (\S+) (base|new) (\d): (\S+) ([\d.]+)", line)
    if m:
        times[(m[1], m[6], m[4])].append(float(m[7]))
for layer in sorted({k[0] for k in times}):
    for layout in sorted({k[1] for k in times}):
        base, new = times.get((layer, layout, "base")), times.get((layer, layout, "new"))
        if base and new:
            print(f"{layer:12s} {layout:7s} base {' '.join(f'{t:.1f}' for t in base)}  new {' '.join(f'{t:.1f}' for t in new)}"
                  f"  {sum(new) / sum(base) - 1:+.1%}")
