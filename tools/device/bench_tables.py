#!/usr/bin/env python3
"""Markdown tables of a bench_conv run, as docs/runtime.md shows them.

Usage: tools/device/bench_tables.py RESULTS_DIR   (the speed.csv and stages.csv of bench_conv.sh)

Speed: every row; the batch-32 rows of the default algorithm (layouts NHWC and NCHW) carry the
first bar's verdict on the graph-replay ratio (within 2x of cuDNN); then, per batch and layout, the
geometric mean and the worst layer of the default algorithm's graph time over cuDNN's fastest graph
time among the layer's rows (cuDNN is found and timed anew in each row, and a slow pick would
flatter NOVA). Stages: batch 32; a fused
kernel's time is the GEMM column (with the GB/s of x, U and y), and for NCHW images the input and
output columns are its layout conversions.
"""
import csv
import math
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
    # cuDNN is measured (cudnnFind, then timed) once per row; its fastest graph time among a layer's
    # rows of one batch and layout is the one each NOVA row is compared with here, so that a slow
    # cudnnFind pick in one row does not flatter NOVA.
    best = {}
    for r in rows:
        key = (r["layer"], r["channels"], r["size"], r["batch"], r["layout"][:4])
        best[key] = min(best.get(key, math.inf), float(r["cudnn_graph_us"]))
    for batch in sorted({r["batch"] for r in rows}, key=int):
        for layout in ("NHWC", "NCHW"):
            chosen = [r for r in rows if r["batch"] == batch and r["layout"] == layout]
            if not chosen:
                continue
            ratios = [(float(r["nova_graph_us"]) / best[(r["layer"], r["channels"], r["size"], batch, layout)], r)
                      for r in chosen]
            worst, w = max(ratios, key=lambda item: item[0])
            geomean = math.exp(sum(math.log(ratio) for ratio, _ in ratios) / len(ratios))
            out.append(f"\nBatch {batch}, {layout}, default algorithm against cuDNN's fastest graph time of the layer: "
                       f"geometric mean {geomean:.2f} over {len(ratios)} layers, worst {worst:.2f} "
                       f"({w['layer']} {w['channels']}@{w['size']}).")
    return "\n".join(out)


def stage_table(rows):
    out = ["| net | C | HW | layout | transform | filter µs (cached) | input µs | GEMM µs | output µs | "
           "input GB/s | GEMM TFLOP/s | output GB/s |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        fused = r["fused"] == "1"
        converted = fused and float(r["input_gbs"]) > 0  # NCHW: the input and output stages convert layouts

        def stage(us, gbs):
            return (f"{float(r[us]):.1f}", f"{float(r[gbs]):.0f}") if not fused or converted else ("—", "—")
        (in_us, in_gbs), (out_us, out_gbs) = stage("input_us", "input_gbs"), stage("output_us", "output_gbs")
        gemm = f"{float(r['gemm_us']):.1f}" + (f" (fused kernel, {float(r['gemm_gbs']):.0f} GB/s)" if fused else "")
        out.append(f"| {r['layer']} | {r['channels']} | {r['size']} | {r['layout']} | {r['transform']} | "
                   f"{float(r['filter_us']):.1f} | {in_us} | {gemm} | {out_us} | {in_gbs} | "
                   f"{float(r['gemm_tflops']):.0f} | {out_gbs} |")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1])
    try:
        speed = list(csv.DictReader((folder / "speed.csv").open()))
        stages = list(csv.DictReader((folder / "stages.csv").open()))
        tables = speed_table(speed), stage_table(stages)
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"bench_tables: cannot read the bench results in {folder}: {e}")
    print("## Speed\n\n" + tables[0] + "\n\n## Stages at batch 32\n\n" + tables[1])


if __name__ == "__main__":
    main()
