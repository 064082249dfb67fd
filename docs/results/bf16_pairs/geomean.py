#!/usr/bin/env python3
"""Geometric mean of NOVA/cuDNN graph-replay ratios of the AUTO rows (NHWC, NCHW) per batch, and the worst
layer, for each speed.csv given (nova-bench-conv's). Usage: geomean.py DIR/speed.csv ..."""
import csv
import math
import sys

for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    for batch in sorted({r["batch"] for r in rows}, key=int):
        for layout in ("NHWC", "NCHW"):
            sel = [r for r in rows if r["batch"] == batch and r["layout"] == layout]
            if not sel:
                continue
            ratios = [float(r["graph_ratio"]) for r in sel]
            worst = max(sel, key=lambda r: float(r["graph_ratio"]))
            print(f"{path} batch {batch} {layout}: geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}, "
                  f"worst {worst['layer']} {worst['channels']}@{worst['size']} {float(worst['graph_ratio']):.2f}")
