#!/usr/bin/env python3
"""tools/device/small_ab.sh's lines as a Markdown table: a row a layer, batch and layout, each build's range over the
runs (graph replay, µs), the change of each later build's mean from the first build's, and cuDNN's range.

  small_ab_table.py ab.txt
"""
import collections
import re
import sys

times, cudnn, builds = collections.defaultdict(list), collections.defaultdict(list), {}
for line in open(sys.argv[1]):
    m = re.match(r"run \d+ (\S+)\s+(\S+) (\S+) b(\d+) (\S+) graph ([\d.]+) us, cuDNN ([\d.]+)", line)
    if not m:
        continue
    build, net, layer, batch, layout, us, cu = m.groups()
    key = (net, layer, int(batch), layout)
    times[key + (build,)].append(float(us))
    cudnn[key].append(float(cu))
    builds.setdefault(build)
names = list(builds)
span = lambda ts: f"{min(ts):.1f}-{max(ts):.1f}"
mean = lambda ts: sum(ts) / len(ts)
print("| layer | batch | layout | " + " | ".join(names) + "".join(f" | {b} change" for b in names[1:]) + " | cuDNN |")
print("|---" * (3 + 2 * len(names)) + "|")
for key in sorted(cudnn, key=lambda k: (k[0], k[1], -k[2], k[3])):
    runs = [times[key + (b,)] for b in names]
    changes = "".join(f" | {100 * (mean(ts) / mean(runs[0]) - 1):+.1f} %" for ts in runs[1:])
    print(f"| {key[0]} {key[1]} | {key[2]} | {key[3]} | " + " | ".join(span(ts) for ts in runs) + changes +
          f" | {span(cudnn[key])} |")
