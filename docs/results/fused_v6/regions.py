#!/usr/bin/env python3
"""Summarises an Nsight Compute SASS source page (ncu -i REP --page source --csv --print-source sass)
of the resident-filter kernel by role: the instructions before the first USETMAXREG, the consumer
region (between the two) and the producer region (after the second). Prints warp-state samples by
stall reason, executed instructions by opcode, and the instructions with the most samples.
Usage: regions.py source.csv"""
import csv
import sys
from collections import Counter

rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], rows[2:]
src, samples, executed = hdr.index("Source"), hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("Instructions Executed")
reasons = [h for h in hdr if h.startswith("stall_") and "(Not Issued)" not in h]
marks = [k for k, r in enumerate(data) if "USETMAXREG" in r[src]]
bounds = {"setup": (0, marks[0]), "consumer": (marks[0], marks[1]), "producer": (marks[1], len(data))}
print(f"{len(data)} instructions in the kernel")
num = lambda r, i: int(r[i] or 0)
for role, (a, b) in bounds.items():
    part = data[a:b]
    stalls = Counter({h: sum(num(r, hdr.index(h)) for r in part) for h in reasons})
    ops = Counter()
    for r in part:
        words = r[src].split()
        if words:
            ops[(words[1] if words[0].startswith("@") else words[0]).split(".")[0]] += num(r, executed)
    print(f"{role}: {sum(num(r, samples) for r in part)} samples, {sum(ops.values())} warp instructions executed")
    print("  stalls:", ", ".join(f"{h[6:]} {n}" for h, n in stalls.most_common(6)))
    print("  opcodes:", ", ".join(f"{o} {n}" for o, n in ops.most_common(10)))
print("most sampled instructions (index, samples, executed, SASS):")
for k in sorted(sorted(range(len(data)), key=lambda k: -num(data[k], samples))[:12]):
    print(f"  {k} {data[k][samples]} {data[k][executed]} {data[k][src].strip()[:70]}")
