#!/usr/bin/env python3
"""AUTO's misses (more than 10 % over NOVA's fastest named configuration) with the committed build (base)
and this session's (new) on the same random shapes (random.csv of nova-bench-conv --random), and how the
F(6,3) 3-pass NHWC times moved. Usage: compare.py SEED ... (reads randSEED_base.csv, randSEED_new.csv)."""
import csv
import math
import sys
from collections import defaultdict


def load(path):
    shapes = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        key = (r["config"], r["transform"], r["path"])
        shapes[(r["n"], r["c"], r["k"], r["h"], r["w"], r["layout"])][key] = float(r["us"])
    return shapes


def misses(shapes):
    out = {}
    for s, rows in shapes.items():
        named = {k: v for k, v in rows.items() if k[0] == "named"}
        auto = [(k, v) for k, v in rows.items() if k[0] == "auto"][0]
        best = min(named.items(), key=lambda kv: kv[1])
        out[s] = (auto[1] / best[1], auto[0][1:], best[0][1:])
    return out


for seed in sys.argv[1:]:
    base, new = load(f"rand{seed}_base.csv"), load(f"rand{seed}_new.csv")
    mb, mn = misses(base), misses(new)
    print(f"seed {seed}: within 10 % base {sum(r < 1.1 for r, _, _ in mb.values())}, new {sum(r < 1.1 for r, _, _ in mn.values())} of {len(mn)}")
    fastest_f6 = [s for s, (_, _, best) in mn.items() if best == ("f6x3_fp16", "3-pass") or best == ("f6x3_nnpack", "3-pass")]
    print(f"  shapes whose fastest configuration is an F(6,3) 3-pass: base {sum(1 for s, (_, _, b) in mb.items() if b[0].startswith('f6x3') and b[1] == '3-pass')}, new {len(fastest_f6)}")
    for s in sorted(mn, key=lambda s: -mn[s][0]):
        rn, an, bn = mn[s]
        rb, ab, bb = mb[s]
        if (rn >= 1.1) != (rb >= 1.1):
            print(f"  {'x'.join(s[:5])} {s[5]}: base {rb:.2f} (auto {'/'.join(ab)}, best {'/'.join(bb)}) -> new {rn:.2f} (auto {'/'.join(an)}, best {'/'.join(bn)})")
    ratios = [new[s][k] / base[s][k] for s in new for k in new[s]
              if k[0] == "named" and k[1] == "f6x3_fp16" and k[2] == "3-pass" and s[5] == "NHWC" and k in base[s]]
    print(f"  f6x3_fp16 3-pass NHWC new/base over {len(ratios)} shapes: geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}, "
          f"range {min(ratios):.2f}-{max(ratios):.2f}")
