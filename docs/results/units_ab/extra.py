#!/usr/bin/env python3
"""Each accurate F(4,3) set's extra time over f4x3_standard, in the base build and the new one, from the
three same-run A/B files of this folder (tools/device/small_ab.sh lines; mean of the runs).

  extra.py   (from this folder)
"""
import collections
import re
import statistics

mean = {}
for name in ("f4x3_standard", "f4x3_fp16_tc", "f4x3_fp16_dyadic"):
    runs = collections.defaultdict(list)
    for line in open(f"ab_{name}.txt"):
        m = re.match(r"run \d+ (\S+)\s+(\S+) (\S+) (b\d+) (\S+) graph ([\d.]+) us", line)
        if m:
            runs[(m[2] + " " + m[3], m[4], m[5], m[1])].append(float(m[6]))
    for key, times in runs.items():
        mean[(name,) + key] = statistics.mean(times)
rows = sorted({k[1:4] for k in mean})
print("| layer | batch | layout | tc base | tc new | dyadic base | dyadic new |")
print("|---|---|---|---|---|---|---|")
for row in rows:
    cells = []
    for name in ("f4x3_fp16_tc", "f4x3_fp16_dyadic"):
        for build in ("base", "new"):
            cells.append(f"{mean[(name,) + row + (build,)] / mean[('f4x3_standard',) + row + (build,)] - 1:+.1%}")
    print(f"| {row[0]} | {row[1]} | {row[2]} | " + " | ".join(cells) + " |")
