#!/usr/bin/env python3
"""The A/B lines of tools/device/ab_stages.sh (ab.txt) as one row per layer, transform and layout
(the transform shown where the file has more than one; element types other than fp16 named): both runs of
each build (graph replay, µs; or with STAGE one stage's time from the stage profile: in, gemm or out) and,
for every build after the base one (with BUILDS, several), its sum over the base build's, minus one.

  ab_table.py ab.txt [STAGE]
"""
import collections
import re
import sys

times = collections.defaultdict(list)
builds = {}  # in the order the file first names them
stages = ["in", "gemm", "out"]
if len(sys.argv) > 2 and sys.argv[2] not in stages:
    sys.exit(f"ab_table.py: STAGE is one of {', '.join(stages)}, not {sys.argv[2]!r}")
column = 7 if len(sys.argv) < 3 else 8 + stages.index(sys.argv[2])
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (\S+) (\S+) (\S+) (\d+): (\S+) ([\d.]+)(?: \| in gemm out: ([\d.]+) ([\d.]+) ([\d.]+))?", line)
    if m and m[column]:  # the fused rows have no stages
        what = m[2] + ("" if m[3] == "fp16" else " " + m[3])
        times[(m[1], what, m[6], m[4])].append(float(m[column]))
        builds.setdefault(m[4])
several = len({k[1] for k in times}) > 1
for layer, what, layout in sorted({k[:3] for k in times}):
    base = times.get((layer, what, layout, "base"))
    others = [(b, times[(layer, what, layout, b)]) for b in builds if b != "base" and (layer, what, layout, b) in times]
    if base and others:
        name = f"{what:14s} " if several else ""
        print(f"{layer:12s} {name}{layout:7s} base {' '.join(f'{t:.1f}' for t in base)}" +
              "".join(f"  {b} {' '.join(f'{t:.1f}' for t in ts)}  {sum(ts) / sum(base) - 1:+.1%}" for b, ts in others))
