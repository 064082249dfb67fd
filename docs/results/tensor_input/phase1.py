#!/usr/bin/env python3
"""Phase 1 of the mma.sync fused kernel in Nsight Compute's per-instruction source page (as
tools/device/sass_summary.py reads it): the instructions between the kernel's first two block barriers
(the block's tile origins, then the input transform), their share of all instructions and warp-state
samples, per item (tile and 32 channels: 200,704 at VGG-16 64@224 batch 32) by opcode, and the
instructions that collect the most samples.

  phase1.py SOURCE.csv.gz [ITEMS]
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tools/device"))
from sass_summary import opcode, read_rows  # noqa: E402

header, rows = read_rows(sys.argv[1])
items = int(sys.argv[2]) if len(sys.argv) > 2 else 200704
executed, source = header.index("Instructions Executed"), header.index("Source")
samples = header.index("Warp Stall Sampling (All Samples)")
count = lambda r, c: int(r[c] or 0)  # noqa: E731
barriers = [i for i, r in enumerate(rows) if re.search(r"\bBAR\b", r[source]) and "DEPBAR" not in r[source]]
first, last = barriers[0], barriers[1]
total, total_samples = sum(count(r, executed) for r in rows), sum(count(r, samples) for r in rows)
region = rows[first:last + 1]
n, s = sum(count(r, executed) for r in region), sum(count(r, samples) for r in region)
ops = collections.Counter()
for r in region:
    ops[opcode(r[source])] += count(r, executed)
print(f"{sys.argv[1]}: {total / 1e6:.1f} M instructions; phase 1 {n / 1e6:.1f} M ({n / total:.0%}), "
      f"{n / items:.0f} an item, {s / total_samples:.0%} of the samples")
print("  an item: " + ", ".join(f"{k} {v / items:.1f}" for k, v in ops.most_common(16)))
for sampled, i in sorted(((count(r, samples), i) for i, r in enumerate(region, first)), reverse=True)[:5]:
    print(f"  {sampled:6d} samples: {rows[i][source].strip()[:60]}")
