#!/usr/bin/env python3
"""The A/B of ab.txt as a Markdown table: ranges over the runs, the change of the mean (python3 table.py ab.txt)."""
import collections
import re
import sys

times, cudnn = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    run, build, net, layer, batch, us, cu = re.match(
        r'run (\d) (\S+)\s+(\S+) (\S+) b(\d+) \S+ graph ([\d.]+) us, cuDNN ([\d.]+)', line).groups()
    times[(net, layer, int(batch), build)].append(float(us))
    cudnn[(net, layer, int(batch))].append(float(cu))
print("| layer | batch | a copy a tile (base) | a copy a pair | change of the mean | cuDNN |")
print("|---|---|---|---|---|---|")
for key in sorted(cudnn, key=lambda k: (k[0], k[1], -k[2])):
    base, pairs = times[key + ('shape',)], times[key + ('pairs',)]
    change = 100 * (sum(pairs) / len(pairs) / (sum(base) / len(base)) - 1)
    print(f"| {key[0]} {key[1]} | {key[2]} | {min(base):.1f}-{max(base):.1f} | {min(pairs):.1f}-{max(pairs):.1f} | "
          f"{change:+.1f} % | {min(cudnn[key]):.1f}-{max(cudnn[key]):.1f} |")
