#!/usr/bin/env python3
"""Instruction counts of the 16-tile fp16 wgmma kernels of f4x3_standard in two builds, by role: the
consumer's code from its USETMAXREG.TRY_ALLOC to the producers' USETMAXREG.DEALLOC, the producers' after it;
for NHWC the opcodes whose counts differ by 10 or more.

Input: sass_{nhwc,nchw}_{cur,v524}.txt.xz in this folder, each `cuobjdump -sass -fun
nova_f4x3_standard_fused_wgmma_LAYOUT_f16_v0 libnova_runtime.so` of the staged small build (cur: v523, v524:
plain, as runs.txt names them), made on the GPU machine.

  sass_counts.py > sass_counts.txt
  sass_counts.py BEFORE.txt.xz AFTER.txt.xz   (any two dumps of one wgmma kernel)
"""
import collections
import lzma
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def opcodes(path):
    ops = []
    with lzma.open(path, "rt") as f:
        for line in f:
            if not re.search(r"/\*[0-9a-f]{4,}\*/", line):
                continue
            m = re.search(r"\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
            if m:
                ops.append(m.group(2))
    return ops


def compare(before_path, after_path, names, diffs=True):
    """Prints each file's instructions by role and, where `diffs`, the opcodes whose counts differ by 10 or more."""
    roles = {}
    for name, path in zip(names, (before_path, after_path)):
        ops = opcodes(path)
        a, b = ops.index("USETMAXREG.TRY_ALLOC.CTAPOOL"), ops.index("USETMAXREG.DEALLOC.CTAPOOL")
        roles[name] = (collections.Counter(ops[a:b]), collections.Counter(ops[b:]))
        print(f"{name}: {len(ops)} instructions, consumer {b - a}, producers {len(ops) - b}")
    if not diffs:
        return
    for part, role in ((0, "consumer"), (1, "producers")):
        before, after = roles[names[0]][part], roles[names[1]][part]
        changed = sorted((after[k] - before[k], k) for k in set(before) | set(after))
        print(f"  {role}, |difference| >= 10: " +
              ", ".join(f"{k} {before[k]} -> {after[k]}" for d, k in changed if abs(d) >= 10))


def main():
    if len(sys.argv) == 3:  # two dumps of one kernel, named by their files
        compare(sys.argv[1], sys.argv[2], [os.path.basename(p).split(".")[0] for p in sys.argv[1:]])
        return
    print("# SASS of nova_f4x3_standard_fused_wgmma_{nhwc,nchw}_f16_v0 in wgb_cur (v5.23) and wgb_v524 (plain), cuobjdump -sass on")
    print("# the GPU machine: instructions in each role (consumer: from USETMAXREG.TRY_ALLOC to the producers' USETMAXREG.DEALLOC;")
    print("# producers: after it) and, for NHWC, the opcodes whose counts differ. Made by sass_counts.py.")
    for layout in ("nhwc", "nchw"):
        paths = [os.path.join(HERE, f"sass_{layout}_{build}.txt.xz") for build in ("cur", "v524")]
        compare(*paths, [f"{layout} cur", f"{layout} v524"], diffs=layout == "nhwc")


if __name__ == "__main__":
    main()
