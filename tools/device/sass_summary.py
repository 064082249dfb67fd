#!/usr/bin/env python3
"""Summarises Nsight Compute's per-instruction source page of one kernel: what it executes per
tensor-core instruction, by opcode, and where its warps stall.

Input: the output of `ncu --import REPORT.ncu-rep --page source --csv --print-source sass`
(plain or gzipped), profiled with the SourceCounters section (`--set full`).

  sass_summary.py SOURCE.csv[.gz]...

For each file: instructions executed, the count of HMMA (mma.sync) or HGMMA (wgmma) instructions,
instructions executed per such instruction by opcode (the most frequent), the warp-stall samples by
reason, and the samples by opcode, each as a share of all samples.

  sass_summary.py --roles SOURCE.csv[.gz]...

The same for each role of a warp-specialised (wgmma) kernel apart: the code from the consumer's
`USETMAXREG.TRY_ALLOC` to the producers' `USETMAXREG.DEALLOC` is the consumer's, the code after it
the producers' (checked: every HGMMA but the tensor-core input transform's 64 x 64 ones must lie in the
consumer's part), with each role's most sampled
instructions, and its waits: the samples on the branch after each mbarrier try-wait
(`SYNCS.PHASECHK`), summed by the barrier's shared-memory operand, and by the operand's offset alone
(one barrier array, whatever register holds the slot). In the wgmma kernel the barriers lie at fixed
offsets (fused_wg_conv_tiles, with kWgMaxUStages = 8): V full +0x0/+0x10 (a slot register), V empty
+0x20/+0x30, U full +0x40 (the stage in a register), staged +0xc0, stored +0xd0. Kernels built before
the twenty-fourth session had three U stages: staged +0x70, stored +0x80.

  sass_summary.py --roles --blocks SOURCE.csv[.gz]...

Also each role's straight runs of code (split after every branch, barrier and exit, and where the times
run change: a branch target) that hold at
least 0.4 % of its samples: start address, instructions, times run, share of the role's instructions
executed and of its samples, and the loads and stores a run (global LDG/STG, shared LDS/STS, bulk
UBLKCP). Where a loop's body is, for instance, and what it costs.

  sass_summary.py --roles SOURCE.csv[.gz] --lines KERNEL.sass[.gz]

Also each role's instructions executed by source line, where KERNEL.sass is `nvdisasm -g` of the same
kernel compiled with `-lineinfo` (its opcodes must match the source page's one for one).
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


def role_of(source, role):
    """The role the instructions from this one on belong to, by the warpgroups' register moves."""
    if "USETMAXREG.TRY_ALLOC" in source:
        return "consumer"
    if "USETMAXREG.DEALLOC" in source:
        return "producers"
    return role


def summarise(label, header, rows, top=16, hottest=0):
    column = {name: i for i, name in enumerate(header)}
    stalls = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    executed, samples, reasons = collections.Counter(), collections.Counter(), collections.Counter()
    sampled_rows = []
    for r in rows:
        op = opcode(r[column["Source"]])
        executed[op] += int(r[column["Instructions Executed"]] or 0)
        n = int(r[column["Warp Stall Sampling (All Samples)"]] or 0)
        samples[op] += n
        sampled_rows.append((n, r[column["Address"]], r[column["Source"]].strip()))
        for s in stalls:
            reasons[s[len("stall_"):]] += int(r[column[s]] or 0)
    total, sampled = sum(executed.values()), max(sum(samples.values()), 1)
    mma = executed["HGMMA"] or executed["HMMA"]
    name = "HGMMA" if executed["HGMMA"] else "HMMA"
    print(f"{label}: {total} instructions executed"
          + (f", {mma} {name}, {total / mma:.1f} per {name}" if mma else "") + f"; {sum(samples.values())} samples")
    if mma:
        print(f"  per {name}: " + ", ".join(f"{op} {n / mma:.2f}" for op, n in executed.most_common(top)))
    print("  stall samples: " + ", ".join(f"{r} {100 * n / sampled:.1f}%" for r, n in reasons.most_common(8)))
    print("  samples by opcode: " + ", ".join(f"{op} {100 * n / sampled:.1f}%" for op, n in samples.most_common(top)))
    for n, address, source in sorted(sampled_rows, key=lambda row: -row[0])[:hottest]:
        print(f"    {100 * n / sampled:5.1f}% {address[-5:]} {source}")


def barrier_waits(header, rows):
    """Samples on the branch that follows each try-wait, by the barrier operand it tested."""
    column = {name: i for i, name in enumerate(header)}
    waits, operand = collections.Counter(), None
    for r in rows:
        text = r[column["Source"]]
        if "SYNCS.PHASECHK" in text:
            operand = re.search(r"\[([^\]]+)\]", text)[1]
        elif opcode(text) == "BRA" and operand:
            waits[operand] += int(r[column["Warp Stall Sampling (All Samples)"]] or 0)
            operand = None
    return waits


def read_line_info(path):
    """(opcode, "file:line") of each instruction of `nvdisasm -g` output, in address order."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        text = f.read()
    line, out = "?", []
    for raw in text.split("\n"):
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', raw)
        if m:
            line = f"{m[1].split('/')[-1]}:{m[2]}"
            continue
        m = re.match(r"\s+/\*[0-9a-f]+\*/\s+(.*?)\s*;", raw)
        if m:
            out.append((opcode(m[1]), line))
    return out


def straight_runs(header, rows, least=0.004):
    """The role's runs of code between branches, barriers, exits and branch targets (where the count of
    times run changes), as printable lines."""
    column = {name: i for i, name in enumerate(header)}
    runs, current = [], None
    for r in rows:
        op, times = opcode(r[column["Source"]]), int(r[column["Instructions Executed"]] or 0)
        if current is not None and times != current["rows"][-1][1]:
            current = None  # a branch lands here: another run
        if current is None:
            current = {"start": r[column["Address"]][-5:], "rows": []}
            runs.append(current)
        current["rows"].append((op, times, int(r[column["Warp Stall Sampling (All Samples)"]] or 0)))
        if op in ("BRA", "EXIT", "BAR") or "SYNCS.PHASECHK" in r[column["Source"]]:
            current = None
    executed = max(sum(e for run in runs for _, e, _ in run["rows"]), 1)
    sampled = max(sum(n for run in runs for _, _, n in run["rows"]), 1)
    out = []
    for run in runs:
        ops, times = run["rows"], max(run["rows"][0][1], 1)
        share = sum(n for _, _, n in ops) / sampled
        if share < least:
            continue
        memory = collections.Counter()
        for op, e, _ in ops:
            if op in ("LDG", "STG", "LDS", "STS", "UBLKCP"):
                memory[op] += e
        out.append(f"    {run['start']} {len(ops):4d} instructions, run {run['rows'][0][1]} times: "
                   f"{100 * sum(e for _, e, _ in ops) / executed:5.1f}% of instructions, {100 * share:5.1f}% of samples"
                   + "".join(f", {op} {n / times:.1f}" for op, n in sorted(memory.items())))
    return out


def summarise_roles(path, lines=None, blocks=False):
    header, rows = read_rows(path)
    source, executed = header.index("Source"), header.index("Instructions Executed")
    parts, role = collections.defaultdict(list), "prologue"
    for r in rows:
        role = role_of(r[source], role)
        parts[role].append(r)
    # The producers' HGMMAs are the tensor-core input transform's 64 x 64 products; any other belongs to the consumer.
    stray = sum(1 for role, part in parts.items() if role != "consumer" for r in part
                if opcode(r[source]) == "HGMMA" and "HGMMA.64x64x16" not in r[source])
    if "consumer" not in parts or "producers" not in parts or stray:
        sys.exit(f"{path}: not split by role (consumer and producer register moves, every HGMMA but the input "
                 "transform's 64 x 64 ones the consumer's)")
    info = None
    if lines:
        info = read_line_info(lines)
        if [op for op, _ in info] != [opcode(r[source]) for r in rows]:
            sys.exit(f"{lines}: not the kernel of {path} (the opcodes differ)")
        info = {id(r): where for r, (_, where) in zip(rows, info)}
    for role in ("consumer", "producers"):
        summarise(f"{path} {role}", header, parts[role], top=10, hottest=8)
        sampled = max(sum(int(r[header.index("Warp Stall Sampling (All Samples)")] or 0) for r in parts[role]), 1)
        waits = barrier_waits(header, parts[role])
        print("  waits by barrier: " + ", ".join(f"[{b}] {100 * n / sampled:.1f}%" for b, n in waits.most_common() if n))
        offsets = collections.Counter()
        for b, n in waits.items():
            offsets[(re.search(r"\+(0x[0-9a-f]+)$", b) or [None, "0x0"])[1]] += n
        print("  waits by offset: " + ", ".join(f"+{o} {100 * n / sampled:.1f}%" for o, n in offsets.most_common() if n))
        if blocks:
            print("  straight runs of code:")
            print("\n".join(straight_runs(header, parts[role])))
        if info:
            by_line = collections.Counter()
            for r in parts[role]:
                by_line[info[id(r)]] += int(r[executed] or 0)
            print("  instructions executed by source line: " +
                  ", ".join(f"{where} {n}" for where, n in by_line.most_common(48)))


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    if args[0] == "--roles":
        if len(args) == 4 and args[2] == "--lines":
            summarise_roles(args[1], args[3])
        else:
            blocks = len(args) > 1 and args[1] == "--blocks"
            for path in args[1 + blocks:]:
                summarise_roles(path, blocks=blocks)
        return 0
    for path in args:
        summarise(path, *read_rows(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
