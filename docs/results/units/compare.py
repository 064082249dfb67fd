#!/usr/bin/env python3
"""The accurate F(4,3) sets' extra time over f4x3_standard before (the forty-second session's tc_set/frontier.csv,
balanced scaling, sums in column order) and after (this folder's frontier.csv, balanced-units, unit terms first):
the fastest fused configuration of each set per row, as tc_set/table.py takes it. Two runs on two leases, one each.
Usage: compare.py [BEFORE.csv AFTER.csv]"""
import csv
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
before, after = (sys.argv[1], sys.argv[2]) if len(sys.argv) > 2 else (os.path.join(here, "../tc_set/frontier.csv"),
                                                                      os.path.join(here, "frontier.csv"))
SETS = ["f4x3_standard", "f4x3_fp16_tc", "f4x3_fp16_dyadic"]


def fastest(path):
    best, order = {}, []
    for row in csv.DictReader(open(path)):
        key = (row["layer"], row["channels"], row["size"], row["batch"], row["layout"])
        if key not in order:
            order.append(key)
        if row["transform"] in SETS and row["path"] == "fused":
            us = float(row["us"])
            best[key, row["transform"]] = min(us, best.get((key, row["transform"]), us))
    return best, order


old, order = fastest(before)
new, _ = fastest(after)
print("| layer | batch | layout | standard before -> after (us) | tc: extra before -> after | dyadic: extra before -> after |")
print("|---|---|---|---|---|---|")
extra = {name: ([], []) for name in SETS[1:]}
for key in order:
    cells = []
    for name in SETS[1:]:
        b = 100 * (old[key, name] / old[key, SETS[0]] - 1)
        a = 100 * (new[key, name] / new[key, SETS[0]] - 1)
        extra[name][0].append(b)
        extra[name][1].append(a)
        cells.append(f"{b:+.1f} % -> {a:+.1f} %")
    print(f"| {key[0]} {key[1]}@{key[2]} | {key[3]} | {key[4]} | {old[key, SETS[0]]:.1f} -> {new[key, SETS[0]]:.1f} | "
          + " | ".join(cells) + " |")
for name, (b, a) in extra.items():
    print(f"{name}: median extra {statistics.median(b):+.1f} % -> {statistics.median(a):+.1f} %; within 3 %: "
          f"{sum(x <= 3 for x in b)} -> {sum(x <= 3 for x in a)} of {len(a)}; smaller on {sum(y < x for x, y in zip(b, a))}")
