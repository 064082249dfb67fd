#!/usr/bin/env python3
"""Where a warp-specialised kernel's samples lie, by role, when its producers also issue HGMMA (so that
tools/device/sass_summary.py --roles, which checks that every HGMMA is the consumer's, does not apply):
the code before the first USETMAXREG (setup), each USETMAXREG.TRY_ALLOC's code up to the next USETMAXREG
(consumer) and each USETMAXREG.DEALLOC's (producers; a kernel whose paths raise and lower by different
counts has several of each), each role with its most sampled instructions, or with
--opcodes its executed warp instructions by opcode (the part before the first dot) and their share of the
role's samples, or with --stalls the share of each stall reason in the role's samples.

  regions.py [--opcodes | --stalls] SOURCE.csv[.gz]   (ncu --import REPORT --page source --csv --print-source sass)
"""
import collections
import csv
import gzip
import re
import sys


def main(path, mode):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = list(csv.reader(f))
    header = rows[1]
    column = {name: i for i, name in enumerate(header)}
    data = rows[2:]
    source, executed = column["Source"], column["Instructions Executed"]
    samples = column["Warp Stall Sampling (All Samples)"]
    count = lambda r, c: int(r[c] or 0)
    total = sum(count(r, samples) for r in data)
    marks = [i for i, r in enumerate(data) if "USETMAXREG" in r[source]]
    role = lambda i: "consumer" if "TRY_ALLOC" in data[i][source] else "producers"
    bounds = [0] + marks + [len(data)]
    lines = {"setup": range(0, bounds[1]), "consumer": [], "producers": []}
    for a, b in zip(bounds[1:], bounds[2:]):
        lines[role(a)] += range(a, b)
    for name, rows_of_role in lines.items():
        s = sum(count(data[i], samples) for i in rows_of_role)
        n = sum(count(data[i], executed) for i in rows_of_role)
        print(f"{name}: samples {s} ({100 * s / total:.1f} %), warp instructions {n}")
        if mode == "--stalls":
            reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
            shares = {h: sum(count(data[i], column[h]) for i in rows_of_role) for h in reasons}
            stalled = max(sum(shares.values()), 1)
            print("    " + ", ".join(f"{h[len('stall_'):]} {100 * v / stalled:.1f} %"
                                    for h, v in sorted(shares.items(), key=lambda kv: -kv[1]) if v))
        elif mode == "--opcodes":
            runs, sampled = collections.Counter(), collections.Counter()
            for i in rows_of_role:
                m = re.match(r"\s*(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", data[i][source])
                if m:
                    runs[m.group(2)] += count(data[i], executed)
                    sampled[m.group(2)] += count(data[i], samples)
            for op, k in runs.most_common(20):
                print(f"    {op:12s} {k:>10d} ({100 * k / max(n, 1):4.1f} %)  samples {100 * sampled[op] / max(s, 1):4.1f} %")
        else:
            for i in sorted(sorted(rows_of_role, key=lambda i: -count(data[i], samples))[:12]):
                print(f"    {i:5d} {data[i][source].strip()[:64]:64s} run {data[i][executed]:>8s}  samples {data[i][samples]}")


if __name__ == "__main__":
    modes = [a for a in sys.argv[1:] if a in ("--opcodes", "--stalls")]
    args = [a for a in sys.argv[1:] if a not in modes]
    main(args[0], modes[0] if modes else None)
