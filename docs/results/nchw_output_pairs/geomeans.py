#!/usr/bin/env python3
"""AUTO (NHWC, NCHW) against cuDNN's fastest graph time of each layer in the run, per batch: the
geometric mean and the worst layer (tools/device/bench_tables.py's geomeans), for each speed.csv given
(nova-bench-conv's; the device script keeps only speed.csv, which bench_tables.py's table needs beside
stages.csv). Usage: geomeans.py SPEED_CSV ..."""
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools" / "device"))
from bench_tables import geomeans  # noqa: E402

for path in sys.argv[1:]:
    for batch, layout, geomean, worst, w in geomeans(list(csv.DictReader(open(path))), ("NHWC", "NCHW")):
        print(f"{path} batch {batch} {layout}: geomean {geomean:.3f}, worst {w['layer']} {w['channels']}@{w['size']} {worst:.2f}")
