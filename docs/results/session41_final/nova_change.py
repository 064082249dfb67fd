#!/usr/bin/env python3
"""NOVA's own change between two sessions' full tables, apart from cuDNN's: per batch and layout, the geometric
mean over the layers of AUTO's graph time (the mean of each session's runs) now against before, and the same for
cuDNN's. Usage (from docs/results): nova_change.py BEFORE_DIR AFTER_DIR (each with run1/ and run2/speed.csv)."""
import collections
import csv
import math
import sys


def times(folder):
    nova, cudnn = collections.defaultdict(list), collections.defaultdict(list)
    for run in ("run1", "run2"):
        for row in csv.DictReader(open(f"{folder}/{run}/speed.csv")):
            if row["layout"] in ("NHWC", "NCHW"):  # AUTO's rows
                key = (int(row["batch"]), row["layout"], row["layer"], row["channels"], row["size"])
                nova[key].append(float(row["nova_graph_us"]))
                cudnn[key].append(float(row["cudnn_graph_us"]))
    mean = lambda d: {k: sum(v) / len(v) for k, v in d.items()}
    return mean(nova), mean(cudnn)


(nova_a, cudnn_a), (nova_b, cudnn_b) = times(sys.argv[1]), times(sys.argv[2])
groups = collections.defaultdict(list)
for key in nova_b:
    if key in nova_a:
        groups[key[:2]].append(key)
for (batch, layout), keys in sorted(groups.items()):
    geo = lambda now, before: math.exp(sum(math.log(now[k] / before[k]) for k in keys) / len(keys))
    print(f"batch {batch} {layout}: NOVA {geo(nova_b, nova_a):.3f}x, cuDNN {geo(cudnn_b, cudnn_a):.3f}x ({len(keys)} layers)")
