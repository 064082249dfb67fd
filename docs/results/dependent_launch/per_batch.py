#!/usr/bin/env python3
"""Per batch and 3-pass layout, the geometric mean over the layers of NOVA's graph time in AFTER over
BEFORE (two speed.csv files of nova-bench-conv), and each layer's ratio: the per-batch tables of
docs/performance.md, "NHWC transform blocks of one tile a warp" (results/nhwc_blocks/final_form/)
and "Transform kernels launched as programmatic dependents" (results/dependent_launch/).
Usage: per_batch.py BEFORE/speed.csv AFTER/speed.csv   (here: base_full/speed.csv new_full/speed.csv)"""
import csv
import math
import sys


def load(path):
    return {(r["layer"], r["channels"], r["size"], r["batch"], r["layout"]): float(r["nova_graph_us"])
            for r in csv.DictReader(open(path))}


before, after = load(sys.argv[1]), load(sys.argv[2])
for batch in ("1", "8", "32"):
    for layout in ("NHWC-3", "NCHW-3"):
        keys = [k for k in before if k[3] == batch and k[4] == layout and k in after]
        ratios = [after[k] / before[k] for k in keys]
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"batch {batch} {layout}: {mean:.3f} ({min(ratios):.2f}-{max(ratios):.2f})")
        print("   " + ", ".join(f"{k[0]} {k[1]}@{k[2]} {after[k] / before[k]:.3f}" for k in keys))
