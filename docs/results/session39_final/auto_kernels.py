#!/usr/bin/env python3
"""What AUTO ran on the random shapes of auto_random/randS_new.csv.gz: the fused kernel and path of its choice per
shape, the wgmma kernel split by whether its launch took groups of 8 because they fit one wave
(fused_wg_wave_tiles: a shape whose groups are 16, F(4,3) with C up to 64 or F(2,3) up to 192 on the H200's shared
memory, with no more groups of 8 than the 132 SMs). Usage: auto_kernels.py SEED... (from this folder)."""
import csv, gzip, math, sys
from collections import Counter, defaultdict

SMS = 132
counts = Counter()
for seed in sys.argv[1:]:
    shapes = defaultdict(list)
    for r in csv.DictReader(gzip.open(f'auto_random/rand{seed}_new.csv.gz', 'rt')):
        shapes[r['shape']].append(r)
    for rows in shapes.values():
        auto = next((r for r in rows if r['config'] == 'auto'), None)
        if auto is None:
            continue
        if auto['path'] == 'fused' and auto['kernel'] == 'wgmma':
            m, n, c, h, w = int(auto['transform'][1]), int(auto['n']), int(auto['c']), int(auto['h']), int(auto['w'])
            tiles = n * math.ceil(h / m) * math.ceil(w / m)
            sixteen = (m == 4 and c <= 64) or (m == 2 and c <= 192)
            counts['wgmma, groups of 8 on one wave' if sixteen and math.ceil(tiles / 8) <= SMS else 'wgmma, other'] += 1
        else:
            counts[f"{auto['path']} ({auto['kernel']})"] += 1
for what, count in counts.most_common():
    print(f"{count:5d}  {what}")
print(f"{sum(counts.values()):5d}  shapes")
