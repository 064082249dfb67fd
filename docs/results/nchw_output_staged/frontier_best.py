#!/usr/bin/env python3
"""For each NCHW layer of a frontier.csv (nova-bench-conv --frontier): AUTO's configuration and the
fastest one within the fp16 error budget (1e-2), and what the batch-32 NCHW geometric mean of a
--quick speed.csv would become if AUTO took the fastest where that is another configuration (where it
is AUTO's own, the two rows differ by noise only).
Usage: frontier_best.py frontier.csv speed.csv"""
import collections
import csv
import math
import sys

frontier, speed = sys.argv[1], sys.argv[2]
rows = collections.defaultdict(list)
for r in csv.DictReader(open(frontier)):
    if r["layout"] == "NCHW":
        rows[(r["channels"], r["size"])].append(r)
factor = {}
for (c, hw), v in rows.items():
    auto = next(r for r in v if r["config"] == "auto")
    named = [r for r in v if r["config"] == "named" and r["error"] != "nan" and float(r["error"]) <= 1e-2]
    best = min(named, key=lambda r: float(r["us"]))
    same = (best["transform"], best["path"]) == (auto["transform"], auto["path"])
    factor[(c, hw)] = 1.0 if same else min(1.0, float(best["us"]) / float(auto["us"]))
    print(f"{c}@{hw}: AUTO {auto['transform']} {auto['path']} {auto['us']} us, fastest {best['transform']} "
          f"{best['path']} {best['us']} us")
# The speed table's rule: each AUTO row against cuDNN's fastest row of its layer (batch 32, NCHW).
cudnn, auto = {}, {}
for r in csv.DictReader(open(speed)):
    if r["batch"] != "32" or not r["layout"].startswith("NCHW"):
        continue
    key = (r["channels"], r["size"])
    cudnn[key] = min(cudnn.get(key, math.inf), float(r["cudnn_graph_us"]))
    if r["layout"] == "NCHW":
        auto[key] = float(r["nova_graph_us"])
logs = [math.log(auto[k] / cudnn[k]) for k in auto]
moved = [math.log(auto[k] * factor.get(k, 1.0) / cudnn[k]) for k in auto]
print(f"NCHW batch 32 geomean: AUTO {math.exp(sum(logs) / len(logs)):.3f}, "
      f"with the frontier's fastest {math.exp(sum(moved) / len(moved)):.3f}")
