#!/usr/bin/env python3
"""NOVA's own graph times of two sessions' full tables, row by row (layer, batch, layout: AUTO and the fused
rows), the mean of each session's two runs and the change; cuDNN's times beside.
Usage (docs/results): session32_final/compare.py session31_final session32_final"""
import collections
import csv
import sys


def load(folder):
    nova, cudnn = collections.defaultdict(list), collections.defaultdict(list)
    for run in ("run1", "run2"):
        for row in csv.DictReader(open(f"{folder}/{run}/speed.csv")):
            key = (row["layer"], row["channels"], row["size"], row["batch"], row["layout"])
            nova[key].append(float(row["nova_graph_us"]))
            cudnn[key].append(float(row["cudnn_graph_us"]))
    return nova, cudnn


(before, cudnn_before), (after, cudnn_after) = load(sys.argv[1]), load(sys.argv[2])
mean = lambda values: sum(values) / len(values)
for key in before:
    if key[4] in ("NHWC", "NCHW", "NHWC-f", "NCHW-f") and key in after:
        b, a = mean(before[key]), mean(after[key])
        print(f"{key[0]} {key[1]}@{key[2]} b{key[3]} {key[4]}: {b:.1f} -> {a:.1f} µs ({100 * (a / b - 1):+.1f} %), "
              f"cuDNN {mean(cudnn_before[key]):.1f} -> {mean(cudnn_after[key]):.1f}")
