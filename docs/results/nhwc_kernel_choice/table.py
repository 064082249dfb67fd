#!/usr/bin/env python3
"""The table of README.md from kernels.txt (device.sh's lines "C,HW,N transform fp16 KERNEL: LAYOUT µs"):
NHWC-f and AUTO's NHWC graph times with each kernel forced, and tile groups of 16 tiles a SM (132 SMs).
Usage: table.py [kernels.txt]"""
import collections
import re
import sys
from pathlib import Path

path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("kernels.txt")
times = collections.defaultdict(dict)
for line in path.read_text().splitlines():
    if m := re.match(r"(\S+) (\S+) fp16 (\w+): (\S+) (\S+)", line):
        layer, transform, kernel, layout, us = m.groups()
        times[(transform, layer)][(kernel, layout)] = float(us)


def groups_per_sm(transform, layer):
    _, hw, batch = map(int, layer.split(","))
    m = 4 if transform.startswith("f4") else 2
    return -(-batch * (-(-hw // m)) ** 2 // 16) / 132


print("| transform | C@HW, batch | tile groups a SM | mma.sync NHWC-f | wgmma NHWC-f | wgmma / mma.sync | AUTO (mma.sync) | AUTO (wgmma forced) |")
print("|---|---|---|---|---|---|---|---|")
for (transform, layer), t in sorted(times.items(), key=lambda kv: (kv[0][0], [int(v) for v in kv[0][1].split(",")])):
    c, hw, batch = layer.split(",")
    mma, wg = t[("mma", "NHWC-f")], t[("wgmma", "NHWC-f")]
    print(f"| {transform} | {c}@{hw}, {batch} | {groups_per_sm(transform, layer):.2f} | {mma:.2f} | {wg:.2f} | {wg / mma:.2f} | "
          f"{t[('mma', 'NHWC')]:.2f} | {t[('wgmma', 'NHWC')]:.2f} |")
