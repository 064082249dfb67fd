#!/usr/bin/env python3
"""The wgmma kernel's time with the last wave of tile groups in halves (build `halves`) against every group
whole (`base`) on the random shapes of device.sh, by what the schedule (fused_wg_schedule) did to the shape:
all its groups of 16 in halves (one wave), the last wave's (last wave), or nothing (unchanged, the control).
Shapes whose kernel takes groups of 8 (fused_wg_tiles: F(4,3) with C > 64, F(2,3) with C > 192, from the
shared-memory layout) are left out. Usage: compare.py SEED... (randSEED_{base,halves}.csv.gz here)."""
import csv, gzip, math, sys
from collections import defaultdict

SMS = 132


def load(path):
    """{(n, c, k, h, w, layout): {(transform, kernel): us}} of the fused rows."""
    shapes = defaultdict(dict)
    for r in csv.DictReader(gzip.open(path, 'rt')):
        if r['config'] == 'named' and r['path'] == 'fused':
            shapes[(r['n'], r['c'], r['k'], r['h'], r['w'], r['layout'])][(r['transform'], r['kernel'])] = float(r['us'])
    return shapes


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


classes = defaultdict(list)
for seed in sys.argv[1:]:
    base, halves = load(f'rand{seed}_base.csv.gz'), load(f'rand{seed}_halves.csv.gz')
    for key in base.keys() & halves.keys():
        n, c, k, h, w = map(int, key[:5])
        for transform in ('f4x3_standard', 'f2x3_standard'):
            wg = (transform, 'wgmma')
            m = int(transform[1])
            if wg not in base[key] or wg not in halves[key] or c > (64 if m == 4 else 192):
                continue
            groups = math.ceil(n * math.ceil(h / m) * math.ceil(w / m) / 16)
            last = groups % SMS
            kind = ('one wave' if groups < SMS else 'last wave') if 0 < last <= SMS // 2 else 'unchanged'
            classes[(kind, transform)].append(halves[key][wg] / base[key][wg])
for (kind, transform), v in sorted(classes.items()):
    print(f"{kind:9s} {transform}: {len(v):3d} shapes, halves/base geomean {geomean(v):.3f}, min {min(v):.3f}, max {max(v):.3f}")
