#!/usr/bin/env python3
"""The two offline analyses of the seventeenth session's README and docs/runtime.md, from committed files.
1. Single-timing noise of `nova-bench-conv --random` (the runtime with the committed fit, seeds 100-106 here and
   the sixteenth session's 97 and 98): misses whose AUTO configuration had its own timing within 10 % of the
   fastest, and how often AUTO's timing was more than 5 % slower than the same configuration's on shapes under 10 us.
2. AUTO against the best of NOVA's configurations on the benchmark layers at batch 32 (frontier_b32.csv): the
   geometric means over cuDNN's time in that run. Usage (from this folder): noise_and_frontier.py"""
import csv
import glob
import gzip
import math

files = sorted(glob.glob("seed10[0-6].csv.gz")) + ["../../nchw_output_pairs/final/rand97_new.csv",
                                                   "../../nchw_output_pairs/final/rand98_new.csv"]
shapes = misses = noise_misses = small = small_off = 0
for path in files:
    by_shape = {}
    for r in csv.DictReader(gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        by_shape.setdefault(r["shape"], []).append(r)
    for rows in by_shape.values():
        named = [r for r in rows if r["config"] == "named"]
        auto = next(r for r in rows if r["config"] == "auto")
        best = min(float(r["us"]) for r in named)
        same = [float(r["us"]) for r in named if (r["transform"], r["path"]) == (auto["transform"], auto["path"])]
        shapes += 1
        if float(auto["us"]) > 1.10 * best:
            misses += 1
            noise_misses += bool(same) and same[0] <= 1.10 * best
        if same and same[0] < 10:
            small += 1
            small_off += float(auto["us"]) > 1.05 * same[0]
print(f"{shapes} shapes, {misses} misses by single timings, {noise_misses} of them with AUTO's configuration "
      f"within 10 % by its own timing; under 10 us: {small_off} of {small} AUTO timings more than 5 % slower "
      f"({100.0 * small_off / small:.0f} %)")

layers = {}
for r in csv.DictReader(open("frontier_b32.csv")):
    layers.setdefault((r["layer"], r["channels"], r["size"], r["layout"]), []).append(r)
for layout in ("NHWC", "NCHW"):
    auto_log = best_log = 0.0
    chosen = [rows for key, rows in layers.items() if key[3] == layout]
    for rows in chosen:
        cudnn = min(float(r["us"]) for r in rows if r["config"] == "cudnn")
        auto = next(float(r["us"]) for r in rows if r["config"] == "auto")
        best = min(float(r["us"]) for r in rows if r["config"] == "named" and float(r["predicted"]) <= 1e-2)
        auto_log += math.log(auto / cudnn)
        best_log += math.log(best / cudnn)
    print(f"{layout} batch 32: AUTO {math.exp(auto_log / len(chosen)):.3f}, best configuration "
          f"{math.exp(best_log / len(chosen)):.3f} (geometric means over cuDNN's time in the run)")
