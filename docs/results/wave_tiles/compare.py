#!/usr/bin/env python3
"""The wgmma kernel's time (f4x3_standard) with tile groups of 8 against 16 on the random shapes of
random.sh, by how many groups of 16 the shape has per multiprocessor (132 on the H200): one line a shape
whose launch changed (C <= 64: groups of 16), then the geomean ratio by class; last, on the shapes whose
groups of 8 fit one wave, how often groups of 8 beat every other configuration of the run with groups of
16 (3-pass, mma.sync, wgmma). Usage: compare.py DIR (randS_tilesT.csv.gz)."""
import csv, glob, gzip, math, os, sys
from collections import defaultdict

SMS = 132
def configs(path):
    """{(n, c, k, h, w, layout): {(transform, path, kernel): us}} of the named configurations."""
    shapes = defaultdict(dict)
    with gzip.open(path, 'rt') as f:
        for r in csv.DictReader(f):
            if r['config'] == 'named':
                shapes[(r['n'], r['c'], r['k'], r['h'], r['w'], r['layout'])][(r['transform'], r['path'], r['kernel'])] = float(r['us'])
    return shapes

def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))

WG = ('f4x3_standard', 'fused', 'wgmma')
rows, one_wave, fastest = [], 0, []
for f16 in sorted(glob.glob(os.path.join(sys.argv[1], 'rand*_tiles16.csv.gz'))):
    a, b = configs(f16), configs(f16.replace('tiles16', 'tiles8'))
    for key in a.keys() & b.keys():
        n, c, k, h, w = map(int, key[:5])
        if c > 64 or WG not in a[key] or WG not in b[key]: continue  # C > 64: groups of 8 in both runs
        tiles = n * math.ceil(h / 4) * math.ceil(w / 4)
        rows.append((math.ceil(tiles / 16) / SMS, key, a[key][WG], b[key][WG]))
        if math.ceil(tiles / 8) <= SMS:
            one_wave += 1
            best = min(a[key].values())
            if b[key][WG] < best: fastest.append(b[key][WG] / best)
rows.sort()
classes = defaultdict(list)
for share, key, t16, t8 in rows:
    print(f"{share:6.2f} groups of 16 an SM  {'x'.join(key[:3])}@{key[3]}x{key[4]} {key[5]}: 16 tiles {t16:8.2f} us, 8 tiles {t8:8.2f} us, ratio {t8 / t16:.3f}")
    classes['<= 0.5' if share <= 0.5 else '0.5-1' if share <= 1 else '1-2' if share <= 2 else '> 2'].append(t8 / t16)
for cls in ('<= 0.5', '0.5-1', '1-2', '> 2'):
    if v := classes[cls]:
        print(f"groups of 16 an SM {cls:>6}: {len(v):3d} shapes, 8/16 geomean {geomean(v):.3f}, "
              f"min {min(v):.3f}, max {max(v):.3f}, faster with 8 on {sum(x < 1 for x in v)}")
print(f"groups of 8 in one wave: {one_wave} shapes; groups of 8 faster than every configuration with 16 on "
      f"{len(fastest)}" + (f", by {geomean(fastest):.3f} (geomean)" if fastest else ""))
