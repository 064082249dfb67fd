#!/usr/bin/env python3
"""Summarises Nsight Compute's per-instruction source page of one kernel: what it executes per
tensor-core instruction, by opcode, and where its warps stall.

Input: the output of `ncu --import REPORT.ncu-rep --page source --csv --print-source sass`
(plain or gzipped), profiled with the SourceCounters section (`--set full`).

  sass_summary.py SOURCE.csv[.gz]...

For each file: instructions executed, the count of HMMA (mma.sync) or HGMMA (wgmma) instructions,
instructions executed per such instruction by opcode (the most frequent), the warp-stall samples by
reason, and the samples by opcode, each as a share of all samples.
"""
import collections
import csv
import gzip
import re
import sys


def read_rows(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.reader(f))
    header = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    return rows[header], rows[header + 1:]


def opcode(source):
    """HMMA of "@!P0 HMMA.16816.F32 R4, ...": the mnemonic without guard predicate and modifiers."""
    return re.sub(r"^@!?U?P\w+\s+", "", source.strip()).split(" ")[0].split(".")[0]


def summarise(path, top=16):
    header, rows = read_rows(path)
    column = {name: i for i, name in enumerate(header)}
    stalls = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    executed, samples, reasons = collections.Counter(), collections.Counter(), collections.Counter()
    for r in rows:
        op = opcode(r[column["Source"]])
        executed[op] += int(r[column["Instructions Executed"]] or 0)
        samples[op] += int(r[column["Warp Stall Sampling (All Samples)"]] or 0)
        for s in stalls:
            reasons[s[len("stall_"):]] += int(r[column[s]] or 0)
    total, sampled = sum(executed.values()), sum(samples.values())
    mma = executed["HGMMA"] or executed["HMMA"]
    name = "HGMMA" if executed["HGMMA"] else "HMMA"
    print(f"{path}: {total} instructions executed, {mma} {name}"
          + (f", {total / mma:.1f} per {name}" if mma else ""))
    if mma:
        print(f"  per {name}: " + ", ".join(f"{op} {n / mma:.2f}" for op, n in executed.most_common(top)))
    print("  stall samples: " + ", ".join(f"{r} {100 * n / sampled:.1f}%" for r, n in reasons.most_common(8)))
    print("  samples by opcode: " + ", ".join(f"{op} {100 * n / sampled:.1f}%" for op, n in samples.most_common(top)))


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    for path in sys.argv[1:]:
        summarise(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
