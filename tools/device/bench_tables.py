#!/usr/bin/env python3
"""Markdown tables of a bench_conv run, as docs/runtime.md shows them.

Usage: tools/device/bench_tables.py RESULTS_DIR   (the speed.csv and stages.csv of bench_conv.sh)

Speed: every row; the batch-32 rows of the default algorithm (layouts NHWC and NCHW) carry the
first bar's verdict on the graph-replay ratio (within 2x of cuDNN). Stages: batch 32; a fused
kernel's time is one number, reported in the GEMM column.
"""
import csv
import sys
from pathlib import Path

BAR = 2.0


def speed_table(rows):
    out = ["| net | C | HW | batch | layout | transform | nova µs | cuDNN µs | ratio | nova graph µs | "
           "cuDNN graph µs | graph ratio |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = float(r["graph_ratio"])
        verdict = ""
        if r["batch"] == "32" and r["layout"] in ("NHWC", "NCHW"):
            verdict = " ✓" if ratio <= BAR else " ✗"
        out.append(f"| {r['layer']} | {r['channels']} | {r['size']} | {r['batch']} | {r['layout']} | "
                   f"{r['transform']} | {float(r['nova_us']):.1f} | {float(r['cudnn_us']):.1f} | "
                   f"{float(r['ratio']):.2f} | {float(r['nova_graph_us']):.1f} | "
                   f"{float(r['cudnn_graph_us']):.1f} | {ratio:.2f}{verdict} |")
    return "\n".join(out)


def stage_table(rows, fused_layouts):
    out = ["| net | C | HW | layout | transform | filter µs (cached) | input µs | GEMM µs | output µs | "
           "input GB/s | GEMM TFLOP/s | output GB/s |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        key = (r["layer"], r["channels"], r["size"], r["layout"])
        head = f"| {r['layer']} | {r['channels']} | {r['size']} | {r['layout']} | {r['transform']} | " \
               f"{float(r['filter_us']):.1f} | "
        if key in fused_layouts:
            out.append(head + f"— | {float(r['gemm_us']):.1f} (one fused kernel) | — | — | "
                       f"{float(r['gemm_tflops']):.0f} | — |")
        else:
            out.append(head + f"{float(r['input_us']):.1f} | {float(r['gemm_us']):.1f} | "
                       f"{float(r['output_us']):.1f} | {float(r['input_gbs']):.0f} | "
                       f"{float(r['gemm_tflops']):.0f} | {float(r['output_gbs']):.0f} |")
    return "\n".join(out)


def fused_rows(log):
    """(net, C, HW, layout) of the stage lines that bench_conv.log marks as one fused kernel."""
    found = set()
    for line in log.read_text().splitlines():
        if "fused: x, U, y" in line:
            net, c, hw, layout = line.split()[:4]
            found.add((net, c, hw, layout))
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1])
    try:
        speed = list(csv.DictReader((folder / "speed.csv").open()))
        stages = list(csv.DictReader((folder / "stages.csv").open()))
        fused = fused_rows(folder / "bench_conv.log") if (folder / "bench_conv.log").exists() else fused_rows(
            folder / "bench.log")
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"bench_tables: cannot read the bench results in {folder}: {e}")
    print("## Speed\n\n" + speed_table(speed) + "\n\n## Stages at batch 32\n\n" + stage_table(stages, fused))


if __name__ == "__main__":
    main()
