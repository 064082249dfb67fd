#!/usr/bin/env python3
"""The two-pass probe against NOVA's AUTO and cuDNN of the same run (device.sh's outputs).

For each bench layer of the probe: AUTO's and cuDNN's time (graph replay), the fastest pass-2 configuration and its
time, the probe's own pass 1, and what pass 1 may take for the two passes to beat AUTO (AUTO - pass 2) against the
least it can take: x read and V written once at the run's copy bandwidth.

  table.py [DIR]   (default: this script's folder; reads probe.txt, bench_nhwc.txt, bench_logs.txt)
"""
import os
import re
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
read = lambda name: open(os.path.join(folder, name)).read()

copy_gbs = float(re.search(r"copy bandwidth (\d+) GB/s", read("bench_logs.txt")).group(1))

# Bench rows: net C HW N NHWC transform nova cudnn ratio nova_graph cudnn_graph ratio_graph.
bench = {}
for line in read("bench_nhwc.txt").splitlines():
    f = line.split()
    if len(f) == 12 and f[4] == "NHWC":
        bench[(f[0], int(f[1]), int(f[2]), int(f[3]))] = (float(f[9]), float(f[10]))

# Probe rows: net C HW N consumers cluster steps CTAs stages pass1 pass2 both TFLOPS.
best = {}
for line in read("probe.txt").splitlines():
    f = line.split()
    if len(f) == 13 and f[0] in ("ResNet-50", "VGG-16"):
        key = (f[0], int(f[1]), int(f[2]), int(f[3]))
        config = f"{f[4]} cons, {f[5]}, {f[6]} step{'s' if f[6] != '1' else ''}"
        pass1, pass2 = float(f[9]), float(f[10])
        if key not in best or pass2 < best[key][1]:
            best[key] = (config, pass2, min(pass1, best.get(key, (None, None, pass1))[2]))

print(f"copy bandwidth of the run: {copy_gbs:.0f} GB/s; times in us (graph replay for AUTO and cuDNN)")
print(f"{'layer':<10} {'C':>4} {'HW':>4} {'N':>3} {'AUTO':>7} {'cuDNN':>7}  {'fastest pass 2':<24} {'pass2':>7} "
      f"{'pass1':>7} {'budget':>7} {'least':>7}  two passes can beat AUTO")
for key in sorted(bench, key=lambda k: (-k[3], k[0], k[1])):
    if key not in best:
        continue
    net, c, hw, n = key
    auto, cudnn = bench[key]
    config, pass2, pass1 = best[key]
    tiles = n * ((hw + 3) // 4) ** 2
    least = (n * hw * hw * c * 2 + tiles * 36 * c * 2) / (copy_gbs * 1e3)  # x and V bytes, us
    budget = auto - pass2
    verdict = "no: pass 2 alone is slower" if budget <= 0 else ("only with pass 1 at copy bandwidth" if budget > least
                                                               else "no: not even at copy bandwidth")
    print(f"{net:<10} {c:>4} {hw:>4} {n:>3} {auto:>7.1f} {cudnn:>7.1f}  {config:<24} {pass2:>7.1f} {pass1:>7.1f} "
          f"{budget:>7.1f} {least:>7.1f}  {verdict}")
