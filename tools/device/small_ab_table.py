#!/usr/bin/env python3
"""tools/device/small_ab.sh's lines as a Markdown table: a row a layer, batch and layout, each build's range over the
runs (graph replay, µs), the change of each later build's mean from the first build's, and cuDNN's range. --plain: the
plain launches' times instead (lines of small_ab.sh since the fifty-third session).

  small_ab_table.py [--plain] ab.txt
"""
import collections
import re
import sys

times, cudnn, builds = collections.defaultdict(list), collections.defaultdict(list), {}
plain = sys.argv[1] == "--plain"
for line in open(sys.argv[-1]):
    m = re.match(r"run \d+ (\S+)\s+(\S+) (\S+) b(\d+) (\S+) graph ([\d.]+) us, cuDNN ([\d.]+)(?:; plain ([\d.]+) us, cuDNN ([\d.]+))?", line)
    if not m or (plain and m[8] is None):
        continue
    build, net, layer, batch, layout = m.groups()[:5]
    us, cu = (m[8], m[9]) if plain else (m[6], m[7])
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
