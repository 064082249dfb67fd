#!/usr/bin/env python3
"""The F(4,3) sets' fastest fused rows of a frontier.csv (nova-bench-conv --frontier), per layer and layout: time,
change against f4x3_standard's, measured error, and cuDNN's time.
Usage: table.py frontier.csv"""
import csv
import sys

SETS = ["f4x3_standard", "f4x3_fp16_tc", "f4x3_fp16_dyadic", "f4x3_fp16"]


def main(path):
    best, cudnn, order = {}, {}, []
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["layer"], int(row["channels"]), int(row["size"]), int(row["batch"]), row["layout"])
            if key not in order:
                order.append(key)
            if row["transform"] == "cudnn":
                cudnn[key] = float(row["us"])
            elif row["path"] == "fused" and row["transform"] in SETS:
                us = float(row["us"])
                old = best.get((key, row["transform"]))
                if old is None or us < old[0]:
                    best[(key, row["transform"])] = (us, float(row["error"]), row["kernel"])
    print("| layer | batch | layout | " + " | ".join(SETS) + " | cuDNN |")
    print("|---|---|---|" + "---|" * (len(SETS) + 1))
    for key in order:
        base = best.get((key, SETS[0]))
        cells = []
        for name in SETS:
            entry = best.get((key, name))
            if entry is None:
                cells.append("-")
                continue
            us, error, kernel = entry
            change = f" ({100 * (us / base[0] - 1):+.1f} %)" if base and name != SETS[0] else ""
            cells.append(f"{us:.1f}{change}, err {error:.2e}, {kernel}")
        net, c, hw, n, layout = key
        print(f"| {net} {c}@{hw} | {n} | {layout} | " + " | ".join(cells) + f" | {cudnn.get(key, float('nan')):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
