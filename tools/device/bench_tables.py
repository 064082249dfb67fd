#!/usr/bin/env python3
"""Markdown tables of a bench_conv run, as docs/runtime.md shows them.

Usage: tools/device/bench_tables.py RESULTS_DIR   (the speed.csv and stages.csv of bench_conv.sh,
       the row_split.csv of bench_row_split.sh, or the frontier.csv of nova-bench-conv --frontier)
       tools/device/bench_tables.py RESULTS_DIR --against BEFORE_DIR   (two bench_conv.sh runs)

Speed: every row; the batch-32 rows of the default algorithm (layouts NHWC and NCHW) carry the
first bar's verdict on the graph-replay ratio (within 2x of cuDNN); then, per batch and layout, the
geometric mean and the worst layer of the default algorithm's graph time over cuDNN's fastest graph
time among the layer's rows (cuDNN is found and timed anew in each row, and a slow pick would
flatter NOVA). Stages: batch 32; a fused
kernel's time is the GEMM column (with the GB/s of x, U and y), and for NCHW images the input and
output columns are its layout conversions. Row splits: each layer's NHWC times (the fused kernel
forced, and AUTO) under the runtime's split choice and each forced split, then the same geometric
means per split, batch and layout (AUTO and fused forced). --against: per layout (AUTO, and each
path forced), the geometric mean over the layer/batch pairs of NOVA's graph time in RESULTS_DIR
over BEFORE_DIR's, how many pairs got faster, and the same geometric mean of cuDNN's times (what
the two runs differ by with nothing changed). Frontier: per layout, what each transform costs in the
fused kernel against f4x3_standard over the layers where both ran fused (median, worst and its layer),
with the transform's measured error range.
"""
import csv
import math
import statistics
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
    for batch, layout, geomean, worst, w in geomeans(rows, ("NHWC", "NCHW")):
        out.append(f"\nBatch {batch}, {layout}, default algorithm against cuDNN's fastest graph time of the layer: "
                   f"geometric mean {geomean:.2f} over {len(rows_of(rows, batch, layout))} layers, worst {worst:.2f} "
                   f"({w['layer']} {w['channels']}@{w['size']}).")
    return "\n".join(out)


def rows_of(rows, batch, layout):
    return [r for r in rows if r["batch"] == batch and r["layout"] == layout]


def geomeans(rows, layouts, reference=None):
    """(batch, layout, geometric mean, worst ratio, its row) of the graph times of `rows` over
    cuDNN's fastest graph time among the layer's rows of `reference` (default: `rows`) of that batch
    and layout family (cuDNN is measured, cudnnFind and then timed, once per row, and a slow pick in
    one row would flatter NOVA)."""
    best = {}
    for r in reference or rows:
        key = (r["layer"], r["channels"], r["size"], r["batch"], r["layout"][:4])
        best[key] = min(best.get(key, math.inf), float(r["cudnn_graph_us"]))
    out = []
    for batch in sorted({r["batch"] for r in rows}, key=int):
        for layout in layouts:
            chosen = rows_of(rows, batch, layout)
            if not chosen:
                continue
            ratios = [(float(r["nova_graph_us"]) / best[(r["layer"], r["channels"], r["size"], batch, layout[:4])], r)
                      for r in chosen]
            worst, w = max(ratios, key=lambda item: item[0])
            out.append((batch, layout, math.exp(sum(math.log(ratio) for ratio, _ in ratios) / len(ratios)), worst, w))
    return out


SPLITS = ["choice", "1", "2", "4", "8"]
SPLIT_LAYOUTS = ("NHWC", "NHWC-f", "NCHW", "NCHW-f")


def row_split_table(rows):
    """bench_row_split.sh: the NHWC rows side by side by split, then the geometric means by split."""
    cells = {}
    for r in rows:
        if r["layout"] in ("NHWC", "NHWC-f"):
            key = (int(r["batch"]), r["layer"], int(r["channels"]), int(r["size"]), r["layout"])
            cells.setdefault(key, {})[r["split"]] = r
    out = ["| batch | layer | layout | " + " | ".join(SPLITS) + " | cuDNN |", "|---" * (len(SPLITS) + 4) + "|"]
    for key, by_split in sorted(cells.items()):
        cudnn = min(float(r["cudnn_graph_us"]) for r in by_split.values())
        out.append(f"| {key[0]} | {key[1]} {key[2]}@{key[3]} | {key[4]} | " +
                   " | ".join(f"{float(by_split[s]['nova_graph_us']):.1f}" if s in by_split else "-" for s in SPLITS) +
                   f" | {cudnn:.1f} |")
    out += ["", "Geometric mean over the layers of the split's graph time over cuDNN's fastest graph time of the "
            "layer among every split's rows (worst in brackets):", "",
            "| split | batch | " + " | ".join(SPLIT_LAYOUTS) + " |", "|---" * (len(SPLIT_LAYOUTS) + 2) + "|"]
    for split in SPLITS:
        by_batch = {}
        for batch, layout, geomean, worst, _ in geomeans([r for r in rows if r["split"] == split], SPLIT_LAYOUTS, rows):
            by_batch.setdefault(batch, {})[layout] = f"{geomean:.2f} ({worst:.2f})"
        for batch, cell in by_batch.items():
            out.append(f"| {split} | {batch} | " + " | ".join(cell.get(layout, "-") for layout in SPLIT_LAYOUTS) + " |")
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


def comparison_table(after, before):
    """--against: NOVA's and cuDNN's graph times of `after` over `before`, per layout, over the pairs
    both runs have."""
    def key(r):
        return r["layer"], r["channels"], r["size"], r["batch"], r["layout"]

    old = {key(r): r for r in before}
    out = ["| layout | pairs | NOVA after / before (geomean) | faster | cuDNN after / before (geomean) |",
           "|---|---|---|---|---|"]
    for layout in sorted({r["layout"] for r in after}):
        pairs = [(r, old[key(r)]) for r in after if r["layout"] == layout and key(r) in old]
        if not pairs:
            continue
        nova = [float(a["nova_graph_us"]) / float(b["nova_graph_us"]) for a, b in pairs]
        cudnn = [float(a["cudnn_graph_us"]) / float(b["cudnn_graph_us"]) for a, b in pairs]
        geomean = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
        out.append(f"| {layout} | {len(pairs)} | {geomean(nova):.3f} | {sum(x < 1 for x in nova)} | {geomean(cudnn):.3f} |")
    return "\n".join(out)


def frontier_table(rows, reference="f4x3_standard"):
    """Each transform's fused time over the reference's, layer by layer, per layout (of the fused kernels
    that ran a transform, the faster: the frontier times it on each)."""
    fused = {}
    for r in rows:
        key = (r["layer"], r["channels"], r["size"], r["layout"], r["transform"])
        if r["config"] == "named" and r["path"] == "fused" and (key not in fused or float(r["us"]) < float(fused[key]["us"])):
            fused[key] = r
    out = ["| layout | transform | measured error | layers | median | worst |", "|---|---|---|---|---|---|"]
    for layout in sorted({k[3] for k in fused}, reverse=True):
        for transform in sorted({k[4] for k in fused if k[3] == layout and k[4] != reference}):
            pairs = [(float(r["us"]) / float(fused[k[:4] + (reference,)]["us"]) - 1, k, float(r["error"]))
                     for k, r in fused.items() if k[3] == layout and k[4] == transform and k[:4] + (reference,) in fused]
            if not pairs:
                continue
            costs = [p[0] for p in pairs]
            worst = max(pairs)
            errors = [p[2] for p in pairs]
            median = statistics.median(costs)
            out.append(f"| {layout} | {transform} | {min(errors):.2e}-{max(errors):.2e} | {len(pairs)} | "
                       f"{100 * median:+.1f} % | {100 * worst[0]:+.1f} % ({worst[1][0]} {worst[1][1]}@{worst[1][2]}) |")
    return "\n".join(out)


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--against":
        try:
            after, before = (list(csv.DictReader((Path(d) / "speed.csv").open())) for d in (sys.argv[1], sys.argv[3]))
            print("## Against " + sys.argv[3] + "\n\n" + comparison_table(after, before))
        except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
            sys.exit(f"bench_tables: cannot compare {sys.argv[1]} with {sys.argv[3]}: {e}")
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1])
    if (folder / "frontier.csv").exists():
        try:
            table = frontier_table(list(csv.DictReader((folder / "frontier.csv").open())))
        except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
            sys.exit(f"bench_tables: cannot read the frontier in {folder}: {e}")
        print("## Fused kernel: each transform's time against f4x3_standard\n\n" + table)
        return
    if (folder / "row_split.csv").exists():
        print("## Row splits\n\n" + row_split_table(list(csv.DictReader((folder / "row_split.csv").open()))))
        return
    try:
        speed = list(csv.DictReader((folder / "speed.csv").open()))
        stages = list(csv.DictReader((folder / "stages.csv").open()))
        tables = speed_table(speed), stage_table(stages)
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"bench_tables: cannot read the bench results in {folder}: {e}")
    print("## Speed\n\n" + tables[0] + "\n\n## Stages at batch 32\n\n" + tables[1])


if __name__ == "__main__":
    main()
