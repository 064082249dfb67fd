#!/usr/bin/env python3
"""AUTO's misses in random.csv files of nova-bench-conv --random: shapes whose AUTO time (median of the
"auto-turns" rows) is more than 10 % above the fastest configuration's ("fastest-turns"), counted by
(layout, AUTO's path, the fastest named configuration's path). Usage: misses.py rand*.csv.gz"""
import collections
import csv
import gzip
import sys

shapes = within = 0
kinds = collections.Counter()
for path in sys.argv[1:]:
    rows = collections.defaultdict(dict)
    named = collections.defaultdict(list)
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for r in csv.DictReader(f):
            if r["config"] == "named":
                named[r["shape"]].append(r)
            else:
                rows[r["shape"]][r["config"]] = r
    for shape, r in rows.items():
        shapes += 1
        if float(r["auto-turns"]["us"]) <= 1.10 * float(r["fastest-turns"]["us"]):
            within += 1
            continue
        best = min(named[shape], key=lambda n: float(n["us"]))
        kinds[(r["auto"]["layout"], r["auto"]["path"], best["path"])] += 1
print(f"{shapes} shapes, {within} within 10 % ({100 * within / shapes:.1f} %), {shapes - within} misses:")
for (layout, auto, fastest), count in kinds.most_common():
    print(f"  {count:4d}  {layout}: AUTO {auto}, fastest {fastest}")
