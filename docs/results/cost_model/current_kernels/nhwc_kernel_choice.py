#!/usr/bin/env python3
"""What choosing the fused kernel per NHWC shape could gain at most: the fastest configuration of each
NHWC shape (every transform on both paths, the runtime's kernels: mma.sync on NHWC) against the same with
the wgmma kernel's fused times added (the files measured with NOVA_FUSED_KERNEL=wgmma), for the
benchmark layers (frontier_bB.csv beside wg_frontier_bB.csv; as ratios to cuDNN) and for random shapes
(randS beside wgS). Run from this folder: ./nhwc_kernel_choice.py"""
import collections
import csv
import gzip
import math
from pathlib import Path

BUDGET = 1e-2  # fp16's predicted-error budget: the configurations AUTO may choose


def rows(path):
    with (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)) as f:
        yield from csv.DictReader(f)


def fastest(path, key, only_fused=False):
    """The fastest NHWC configuration's time per key(row) in a file (named configurations within the budget)."""
    best = collections.defaultdict(lambda: math.inf)
    for r in rows(path):
        if r["layout"] != "NHWC" or r["config"] != "named" or (only_fused and r["path"] != "fused"):
            continue
        if "predicted" in r and float(r["predicted"]) > BUDGET:
            continue
        best[key(r)] = min(best[key(r)], float(r["us"]))
    return best


def geomean(values):
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values))


layer = lambda r: (r["layer"], r["channels"], r["size"])  # noqa: E731
for batch in (1, 8, 32):
    base, forced = Path(f"frontier_b{batch}.csv"), Path(f"wg_frontier_b{batch}.csv")
    cudnn = {layer(r): float(r["us"]) for r in rows(base) if r["layout"] == "NHWC" and r["config"] == "cudnn"}
    now, wg = fastest(base, layer), fastest(forced, layer, only_fused=True)
    both = {k: min(now[k], wg[k]) for k in now}
    gains = [f"{k[0]} {k[1]}@{k[2]} {both[k] / now[k]:.3f}" for k in now if both[k] < 0.98 * now[k]]
    print(f"benchmark layers, batch {batch}: fastest configuration / cuDNN, geometric mean "
          f"{geomean(now[k] / cudnn[k] for k in now):.3f}, with the wgmma kernel's times {geomean(both[k] / cudnn[k] for k in now):.3f}"
          f"{'; gains over 2 %: ' + ', '.join(gains) if gains else ''}")
shape = lambda r: r["shape"]  # noqa: E731
ratios = []
for forced in sorted(Path(".").glob("wg1*.csv.gz")):
    seed = forced.name[2:5]
    base = Path(f"../../session26_final/auto_random/rand{seed}_new.csv.gz")
    now, wg = fastest(base, shape), fastest(forced, shape, only_fused=True)
    ratios += [min(now[k], wg[k]) / now[k] for k in now]
print(f"random NHWC shapes (seeds 112-118): {len(ratios)}; the wgmma kernel faster than every configuration by more than "
      f"10 % on {sum(r < 1 / 1.1 for r in ratios)}, by more than 3 % on {sum(r < 1 / 1.03 for r in ratios)}; "
      f"geometric mean of the fastest time {geomean(ratios):.3f} of today's")
