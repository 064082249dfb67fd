#!/usr/bin/env python3
"""AUTO's time on the random shapes, the staged build against the committed one (same seeds, same
call): for the NCHW shapes whose 3-pass F(4,3) output takes the staged kernel (output rows of at
most 8 tiles that are not runs of 4: the width not a multiple of 4) and for the rest, the geometric
mean of new/base of AUTO's graph time, and of the fastest F(4,3) 3-pass configuration's; then the
staged shapes by the output transform's blocks (what stage_nchw_output compares with the GPU's
multiprocessors, 132 on the H200).
Usage: staged_shapes.py rand107_base.csv.gz rand107_new.csv.gz [...base new pairs]"""
import collections
import csv
import gzip
import math
import sys


def read(path):
    shapes = collections.defaultdict(dict)
    for r in csv.DictReader(gzip.open(path, "rt")):
        s = shapes[int(r["shape"])]
        s["desc"] = (int(r["n"]), int(r["c"]), int(r["k"]), int(r["h"]), int(r["w"]), r["layout"])
        if r["config"] == "auto":
            s["auto"] = float(r["us"])
        if r["config"] == "named" and r["path"] == "3-pass" and r["transform"].startswith("f4x3"):
            s["f4x3"] = min(s.get("f4x3", math.inf), float(r["us"]))
    return shapes


groups = collections.defaultdict(lambda: collections.defaultdict(list))
by_blocks = collections.defaultdict(list)
edges = [0, 64, 132, 264, 528, 1056, 4000, 10**9]
args = sys.argv[1:]
for base_path, new_path in zip(args[::2], args[1::2]):
    base, new = read(base_path), read(new_path)
    for i, b in base.items():
        n, c, k, h, w, layout = b["desc"]
        staged = layout == "NCHW" and (w + 3) // 4 <= 8 and w % 4 != 0  # pad 1: output width = w
        g = groups["NCHW, staged F(4,3) output" if staged else "the rest"]
        g["auto"].append(math.log(new[i]["auto"] / b["auto"]))
        if "f4x3" in b and "f4x3" in new[i]:
            g["f4x3"].append(math.log(new[i]["f4x3"] / b["f4x3"]))
            if staged:
                tiles = n * ((h + 3) // 4) * ((w + 3) // 4)
                blocks = (tiles + 31) // 32 * ((k + 7) // 8)  # 32 tiles x 8 channels a block
                edge = max(e for e in edges if e <= blocks)
                by_blocks[edge].append(math.log(new[i]["f4x3"] / b["f4x3"]))
def mean(v):
    return math.exp(sum(v) / len(v)) if v else float("nan")


for name, g in groups.items():
    print(f"{name}: {len(g['auto'])} shapes, AUTO new/base {mean(g['auto']):.3f}, "
          f"fastest F(4,3) 3-pass new/base {mean(g['f4x3']):.3f}")
for lo, hi in zip(edges, edges[1:]):
    if by_blocks[lo]:
        print(f"  staged, {lo}-{hi - 1} output blocks: {len(by_blocks[lo])} shapes, fastest F(4,3) 3-pass new/base "
              f"{mean(by_blocks[lo]):.3f}")
