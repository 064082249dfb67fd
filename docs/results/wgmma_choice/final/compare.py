#!/usr/bin/env python3
"""The numbers docs/performance.md and docs/runtime.md quote for this session's final build:
(1) NOVA's and cuDNN's graph times per layer in the two full tables here against session 28's two
(means of the two runs; AUTO's transform and, at batch 32, its kernel); (2) on the fresh seeds in
auto_random/: which kernel AUTO and the fastest configuration ran, the fused-against-fused misses and
how many of them are the right transform on the other kernel, and on NHWC shapes the fastest time with
both kernels over the fastest without the wgmma kernel.
Usage (from this folder): ./compare.py > compare.txt"""
import collections
import csv
import glob
import gzip
import math


def table(path):
    return {(r["layer"], r["channels"], r["size"], r["batch"], r["layout"]): r
            for r in csv.DictReader(open(path)) if r["layout"] in ("NHWC", "NCHW")}


def mean(tables, key, column):
    return sum(float(t[key][column]) for t in tables) / len(tables)


old = [table(f"../../session28_final/run{i}/speed.csv") for i in (1, 2)]
new = [table(f"run{i}/speed.csv") for i in (1, 2)]
kernel = {(r["layer"], r["channels"], r["size"], r["batch"], r["layout"]): r["fused"]
          for r in csv.DictReader(open("run1/stages.csv"))}
print("layer, layout, batch: NOVA us session 28 -> now (change), cuDNN us session 28 -> now, ratio session 28 -> now")
for key in sorted(old[0], key=lambda k: (k[4], int(k[3]), k[0], int(k[1]))):
    o, n = mean(old, key, "nova_graph_us"), mean(new, key, "nova_graph_us")
    oc, nc = mean(old, key, "cudnn_graph_us"), mean(new, key, "cudnn_graph_us")
    print(f"{key[0]:9} {key[1]:>3}@{key[2]:<3} {key[4]} b{key[3]:<2} {o:8.2f} -> {n:8.2f} ({n / o - 1:+6.1%}) "
          f"{new[0][key]['transform']:16} kernel {kernel.get(key, '-')}  cuDNN {oc:8.2f} -> {nc:8.2f}  "
          f"ratio {o / oc:.3f} -> {n / nc:.3f}")

counts, misses, other_kernel, nhwc = collections.Counter(), 0, 0, []
for path in sorted(glob.glob("auto_random/*.csv.gz")):
    shapes = collections.defaultdict(list)
    for r in csv.DictReader(gzip.open(path, "rt")):
        shapes[r["shape"]].append(r)
    for rows in shapes.values():
        auto = next(r for r in rows if r["config"] == "auto-turns")
        fastest = next(r for r in rows if r["config"] == "fastest-turns")
        counts[(auto["layout"], "AUTO", auto["kernel"])] += 1
        counts[(fastest["layout"], "fastest", fastest["kernel"])] += 1
        if float(auto["us"]) > 1.1 * float(fastest["us"]) and auto["path"] == fastest["path"] == "fused":
            misses += 1
            other_kernel += auto["transform"] == fastest["transform"] and auto["kernel"] != fastest["kernel"]
        if auto["layout"] == "NHWC":
            named = [r for r in rows if r["config"] == "named"]
            nhwc.append(min(float(r["us"]) for r in named) / min(float(r["us"]) for r in named if r["kernel"] != "wgmma"))
print()
for key in sorted(counts):
    print(f"{key[0]} {key[1]:7} on {key[2]:6}: {counts[key]} shapes")
print(f"fused-against-fused misses: {misses}, of them the right transform on the other kernel: {other_kernel}")
geomean = math.exp(sum(map(math.log, nhwc)) / len(nhwc))
print(f"{len(nhwc)} NHWC shapes: fastest with both kernels / fastest without the wgmma kernel, geomean {geomean:.4f}; "
      f"more than 10 % faster on {sum(x < 1 / 1.1 for x in nhwc)}")
