#!/usr/bin/env python3
"""AUTO's rows of two speed.csv files (nova-bench-conv): the rows whose transform differs between the
two, with both graph times and their ratio.
Usage: choices.py BEFORE_SPEED_CSV AFTER_SPEED_CSV"""
import csv
import sys


def auto_rows(path):
    return {(r["layer"], r["channels"], r["size"], r["batch"], r["layout"]): r
            for r in csv.DictReader(open(path)) if r["layout"] in ("NHWC", "NCHW")}


before, after = auto_rows(sys.argv[1]), auto_rows(sys.argv[2])
for key, b in before.items():
    a = after[key]
    if a["transform"] != b["transform"]:
        layer, c, hw, batch, layout = key
        ratio = float(a["nova_graph_us"]) / float(b["nova_graph_us"])
        print(f"{layer} {c}@{hw} batch {batch} {layout}: {b['transform']} {b['nova_graph_us']} -> "
              f"{a['transform']} {a['nova_graph_us']} us ({ratio - 1:+.1%})")
