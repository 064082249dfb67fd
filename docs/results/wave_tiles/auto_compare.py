#!/usr/bin/env python3
"""AUTO before and after the rule, on the same random shapes (auto_ab.sh's randS_base.csv.gz and
randS_new.csv.gz; seeds whose pair is incomplete are skipped). For each build: how often AUTO (timed in turns)
is within 10 % of the fastest named configuration of its own run (single timings), and AUTO's time new/base
(geomean) over every shape and over those where the F(4,3) launch changed (C <= 64, groups of 8 in one wave
on 132 SMs). "unscaled" estimates the rule without the cost model's 0.748: base's choice (the same model),
its time the new run's time of that configuration where it is a wgmma one (else base's AUTO time)."""
import csv, glob, gzip, math, os, sys
from collections import defaultdict

def load(path):
    shapes = defaultdict(lambda: {'named': {}})
    with gzip.open(path, 'rt') as f:
        for r in csv.DictReader(f):
            s = shapes[r['shape']]
            s['meta'] = r
            config = (r['transform'], r['path'], r['kernel'])
            if r['config'] == 'named': s['named'][config] = float(r['us'])
            elif r['config'] == 'auto-turns': s['auto'] = (float(r['us']), config)
    return shapes

def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))

within = defaultdict(int)
ratios = defaultdict(lambda: defaultdict(list))
wgmma = defaultdict(int)
shapes = 0
for base_path in sorted(glob.glob(os.path.join(sys.argv[1], 'rand*_base.csv.gz'))):
    new_path = base_path.replace('_base', '_new')
    if not os.path.exists(new_path): continue
    base, new = load(base_path), load(new_path)
    for key in base.keys() & new.keys():
        b, n = base[key], new[key]
        if 'auto' not in b or 'auto' not in n: continue
        shapes += 1
        m = b['meta']
        N, C, H, W = int(m['n']), int(m['c']), int(m['h']), int(m['w'])
        one_wave = C <= 64 and math.ceil(N * math.ceil(H / 4) * math.ceil(W / 4) / 8) <= 132
        choice = b['auto'][1]
        unscaled = n['named'].get(choice, b['auto'][0]) if choice[2] == 'wgmma' else b['auto'][0]
        for name, us, fastest in (('base', b['auto'][0], min(b['named'].values())), ('new', n['auto'][0], min(n['named'].values())),
                                  ('unscaled', unscaled, min(n['named'].values()))):
            within[name] += us <= 1.1 * fastest
            if name != 'base':
                ratios[name]['all'].append(us / b['auto'][0])
                ratios[name]['one wave' if one_wave else 'rest'].append(us / b['auto'][0])
        wgmma['base'] += b['auto'][1][2] == 'wgmma'
        wgmma['new'] += n['auto'][1][2] == 'wgmma'
print(f"{shapes} shapes; AUTO on the wgmma kernel: base {wgmma['base']}, new {wgmma['new']}")
for name in ('base', 'new', 'unscaled'):
    line = f"{name:>8}: AUTO within 10 % of its run's fastest on {within[name]} ({100 * within[name] / shapes:.1f} %)"
    for group, v in ratios[name].items():
        line += f"; {group} {len(v)} shapes, time/base {geomean(v):.3f}"
    print(line)
