#!/usr/bin/env python3
"""Fits the GPU backend's cost model (runtime/src/gpu_cost_model.hpp) to measured times.

Input: random.csv files (or gzipped, .csv.gz) of `nova-bench-conv OUT --random COUNT --seed S` (every transform within
the fp16 budget on both paths, graph-replay microseconds, random shapes) and frontier.csv files of
`--frontier` (every transform on both paths on the benchmark layers at batch 32). The model predicts a
forward pass's time as a linear combination of features of the shape, the transform and the path
(bytes, tensor-core work, transform operations, the fused kernels' waves; the byte features once
more times the measuring GPU's memory slowdown, --bandwidth); the coefficients are fitted per path
(3-pass, the mma.sync fused kernel, the wgmma fused kernel where the runtime runs it) by least
squares on the relative error. That prediction is then multiplied by a shape correction per (path,
output tile side, layout), exp of a ridge fit of the log residual on the logs of N, C, K, H, W and
the tile count (clamped to the random shapes' ranges) and their pairwise products, fitted to order
the configurations of each shape (fit()), and by exp of gradient-boosted regression trees fitted to
what is left (fit_trees(); scikit-learn, Debian's python3-sklearn). frontier.csv files may hold any
batch (`--frontier --batch N`). This script computes the same features as gpu_cost_model.hpp (keep
the two in step), prints the linear coefficients and each path's prediction error on the training
data, and with --write writes the whole fit as runtime/src/gpu_cost_fit.inc, which the runtime
includes.

  fit_cost_model.py TRAIN.csv... [--mma-only OLD_TRAIN.csv...] [--check HELD_OUT.csv...] [--narrow-product CSV...]
                    [--wgmma-forced CSV...] [--sixteen-tile-groups CSV...] [--one-kronecker-table CSV...]
                    [--unbalanced-groups CSV...]
                    [--unsplit | --chosen-with COEFFICIENTS_FILE [CSV...]]... [--no-correction]
                    [--benchmark-weight W] [--small-batch-weight W] [--bandwidth GBPS CSV...]
                    [--cv FOLDS] [--no-trees | --tree-size COUNT LEAVES RATE] [--write runtime/src/gpu_cost_fit.inc]

--check: how often the fitted model's choice is within 10 % of the fastest measured configuration
on shapes that were not fitted, and the worst miss (what AUTO does with the model, offline); a
training file given here is reported as such (its in-sample choices).
--cv: the same share by k-fold cross-validation over the training files' random shapes (the
benchmark layers stay in every fold's fit). --no-correction: the linear model alone; --no-trees:
without the trees.
--bandwidth GBPS CSV...: the peak memory bandwidth of the GPU that measured those files (what the
runtime computes from the device's memory clock and bus width); files named nowhere came from an
H200. Each path's byte features appear twice, once as they are and once times the GPU's memory
slowdown (the H200's bandwidth over the GPU's, less 1: 0 on an H200), so that one fit describes
GPUs that differ in memory bandwidth.
"""
import argparse
import collections
import csv
import gzip
import importlib.util
import math
import itertools
import random
import re
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_COEFFICIENTS = ROOT / "runtime" / "src" / "gpu_cost_fit.inc"  # what --write writes
MULTIPROCESSORS = 132  # the H200 the data came from
SHARED_LIMIT = 232448  # its shared memory per block (227 KB)
# The benchmark layers (frontier.csv rows) weigh as much as this many random shapes each: the
# layers of real networks matter more than a random shape, and are few among them. At 10 the shape
# correction fitted to the random shapes overpredicted them by up to 1.8x and missed 2 of the 18
# batch-32 choices; at 100 it costs the random shapes 5 points of cross-validation.
BENCHMARK_WEIGHT = 30.0
# Their rows at batches 1 and 8 (frontier.csv files of `--frontier --batch N`) weigh this many: at 30
# they cost the random shapes 2 points of cross-validation (the pooled fit of 2026-11-26's fifth
# session: 87.5 % against 89.7 % without them); at 10 nothing, and the model's choice is within 10 %
# on 16 and 17 of their 18 layer/layout pairs (13 and 17 without them). The thirty-eighth session's fit passes 30
# (--small-batch-weight): with data of the v5.28 kernels 10 left 2 of the 18 batch-8 pairs beyond 10 %, and 30 did
# better on fresh shapes and the full tables (docs/results/tc_choice/fit.sh).
SMALL_BATCH_WEIGHT = 10.0
# --unsplit: the data was measured before the runtime split the mma.sync kernel's rows on small grids
# (gpu_cost_model.hpp fastest_fused_launch), so every launch was fused_launch's. Otherwise the
# runtime picked each fused forward's row split as the fastest by its mma.sync coefficients: those
# of the build that measured each file (--chosen-with) for the fit, the fitted ones for --check (the
# choice the runtime will make with them).
UNSPLIT = False
# --narrow-product: the files measured by a runtime that stores the 3-pass pipeline's M in 16 bits
# where the budget allows (2026-11-26, third session on); earlier data had M in fp32.
NARROW_PRODUCT = set()
# --wgmma-forced: files measured with NOVA_FUSED_KERNEL=wgmma before the bench named the fused kernel:
# their fused rows ran the wgmma kernel wherever it runs (those with tile groups of 8, which the runtime
# never takes, are left out), the mma.sync kernel elsewhere.
WGMMA_FORCED = set()
# --sixteen-tile-groups: files measured before the wgmma kernel took groups of 8 where those fit one wave
# (2026-11-30, thirty-ninth session; fused_wgmma_kernels.hpp fused_wg_wave_tiles): every launch of a shape whose
# groups are 16 took 16 there.
SIXTEEN_TILE_GROUPS = set()
# --one-kronecker-table: files measured before the wgmma kernel's tensor-core input path took B^T (x) B^T as two
# tables (2026-12-01, fortieth session; fused_wgmma_kernels.hpp fused_wg_tc_input): the transforms that need two
# ran the FP path there.
ONE_KRONECKER_TABLE = set()
# --unbalanced-groups: files measured before the wgmma kernel's tensor-core launches balanced their tile groups over the
# grid's waves (2026-12-02, forty-seventh session; fused_wgmma_kernels.hpp fused_wg_group_size): those launches took
# whole groups of 16 there.
UNBALANCED_GROUPS = set()
# Peak memory bandwidth (GB/s, 2 x memory clock x bus width, as the runtime computes it from the
# device's attributes; nova-bench-conv prints it) of the H200 that is the model's reference, and of
# the slowest GPU fitted (an H100 SXM: 2,619 MHz, 5,120 bits): gpu_cost_model.hpp
# kReferenceMemoryGBps and kSlowestMemoryGBps. The slowdown of a GPU beyond the fitted range is
# clamped to it.
REFERENCE_GBPS = 4814.3
SLOWEST_GBPS = 3352.3
# The features (indices into each path's list) that count bytes moved: these also appear times the
# memory slowdown.
BYTE_FEATURES = {"3-pass": (1, 2, 3, 5, 6), "mma": (4, 5, 6, 7, 8), "wgmma": (2, 5, 6)}


def memory_slowdown(gbps):
    """gpu_cost_model.hpp memory_slowdown: how much longer a byte takes than on the reference H200,
    less 1, within the fitted GPUs' range."""
    return min(max(REFERENCE_GBPS / gbps - 1.0, 0.0), REFERENCE_GBPS / SLOWEST_GBPS - 1.0)


def with_slowdown(values, row, path):
    """A path's features followed by its byte features times the row's GPU's memory slowdown."""
    return list(values) + [values[i] * row["slowdown"] for i in BYTE_FEATURES[path]]


def transform_ops():
    """(input_ops, output_ops, amp2D) of every transform, from the generated registry."""
    text = (ROOT / "generated" / "registry.cpp").read_text()
    pattern = r'\.name = "([a-z0-9_]+)".*?\.input_ops = (\d+),\s*\.output_ops = (\d+),\s*\.amp2d = ([0-9.e+-]+),'
    return {m[1]: (int(m[2]), int(m[3]), float(m[4])) for m in re.finditer(pattern, text, re.S)}


def kronecker_terms_fp16():
    """How many fp16 tables sum to each transform's B^T (x) B^T (0: not two), from the generated headers
    (each Transform's kronecker_terms_fp16)."""
    terms = {}
    for path in (ROOT / "generated").glob("*_transforms.hpp"):
        m = re.search(r'name = "([a-z0-9_]+)";.*?kronecker_terms_fp16 = (\d+)', path.read_text(), re.S)
        if m:
            terms[m[1]] = int(m[2])
    return terms


KRONECKER_TERMS = kronecker_terms_fp16()


def fused_shared_bytes(n, width, tile_groups, k_blocks):  # fused_kernels.hpp
    tiles = 16 * tile_groups
    return (n * n * tiles * width + 8 * 3 * n * k_blocks * 8 * 16) * 2 + tiles * 12


def fused_launch(n, c, k):  # fused_kernels.hpp: (tile groups, K blocks, chunk, chunked)
    cp, kp = (c + 15) // 16 * 16, (k + 15) // 16 * 16
    if c % 2 == 0 and k % 2 == 0:
        for groups in (4, 2, 1):
            if 2 * fused_shared_bytes(n, cp, groups, 1) <= SHARED_LIMIT:
                return groups, 1, cp, False
        if fused_shared_bytes(n, cp, 1, 2) <= SHARED_LIMIT:
            return 1, 2, cp, False
    step = fused_shared_bytes(n, 16, 1, 1) - fused_shared_bytes(n, 0, 1, 1)
    fit = (SHARED_LIMIT - fused_shared_bytes(n, 0, 1, 1)) // step
    steps = cp // 16
    chunks = (steps + fit - 1) // fit
    return 1, 1, (steps + chunks - 1) // chunks * 16, True


def fused_k_slice(k, launch):  # fused_kernels.hpp: K blocks of 8 a block takes
    groups, k_blocks, chunk, chunked, split = launch
    if split > 1:
        return 8 // split
    return 8 if chunked else (k + 15) // 16 * 2


def fused_blocks(tiles, k, launch):  # fused_kernels.hpp
    blocks_k, k_slice = (k + 15) // 16 * 2, fused_k_slice(k, launch)
    return math.ceil(tiles / (16 * launch[0])) * math.ceil(blocks_k / k_slice)


def split_launches(n, m, c, k):  # fused_kernels.hpp fused_split_launch: every row split that fits
    launch = fused_launch(n, c, k) + (1,)
    yield launch
    s = 2
    while s <= 8 and s // 2 < n:
        partial = (8 // s) * (min(s, n) - 1) * 32 * m * m * 16
        if fused_shared_bytes(n, launch[2], 1, 1) + max(0, partial - n * n * 16 * launch[2] * 2) > SHARED_LIMIT:
            return
        yield (1, 1, launch[2], True, s)
        s *= 2


def fused_coefficients(path):
    """The mma.sync kernel's coefficients (kFusedCoefficients = {...}) in a file: gpu_cost_fit.inc,
    or what this script printed for the build that measured the data."""
    values = re.search(r"kFusedCoefficients = \{([^}]*)\}", Path(path).read_text())[1]
    coefficients = [float(v) for v in values.split(",")]
    # A build before the memory slowdown had no such terms: as if they were 0 (it measured on either GPU alike).
    return coefficients + [0.0] * (11 + len(BYTE_FEATURES["mma"]) - len(coefficients))


def fused_wg_tiles(n, m, c, k):  # fused_wgmma_kernels.hpp: tiles a group, 0 where the kernel cannot run
    steps = (c + 15) // 16
    for tiles in (16, 8):
        v_slot, u_stage = n * n * steps * tiles * 16, n * 64 * 16
        staging = max(tiles * (m * m * 64 + 8), 64 * (tiles * m * m + 2))
        barriers = 2 * 2 + 8 + 2  # kWgBarriers: V full and empty, U full (kWgMaxUStages), staging full and free
        header = (barriers * 16 + 2 * 16 * 12 + 127) // 128 * 128  # kWgHeaderBytes: to a 128-byte boundary
        if header + 2 * (2 * v_slot + 3 * u_stage + staging) <= SHARED_LIMIT:
            return tiles
    return 0


def wg_tiles(row):
    """The wgmma kernel's tile group for the row's shape (0: it cannot run)."""
    m = int(row["transform"][1])
    return fused_wg_tiles(m + 2, m, int(row["c"]), int(row["k"]))


def kernel(row):
    """Which kernel ran: "3-pass", or the fused path's "mma" or "wgmma": as the file's kernel column says
    (the bench times each fused configuration on both kernels where both run and AUTO chooses between
    them); in older files "mma" where measured before the wgmma kernel, "wgmma" wherever it takes tile
    groups of 16 in --wgmma-forced files, else the rule of the runtime that measured them (the wgmma
    kernel on NCHW images with tile groups of 16)."""
    if row["path"] != "fused":
        return "3-pass"
    if row.get("kernel") in ("mma", "wgmma"):
        return row["kernel"]
    if row.get("mma_only"):
        return "mma"
    wgmma = wg_tiles(row) == 16 and (row["wgmma_forced"] or row["layout"] == "NCHW")
    return "wgmma" if wgmma else "mma"


def wg_launch_tiles(row, P):
    """gpu_cost_model.hpp wg_launch_tiles: the wgmma kernel's tile group for a shape whose groups are 16."""
    return 8 if not row["sixteen_tile_groups"] and math.ceil(P / 8) <= MULTIPROCESSORS else 16


WG_TC_TWO_TABLE_GROUPS = 2  # fused_wgmma_kernels.hpp kWgTcTwoTableGroups
WG_GROUP_WHOLE = 4  # fused_wgmma_kernels.hpp fused_wg_group_size's kWhole: a batch of each producer warpgroup


def wg_group_tiles(row, P, launch_tiles, tables):
    """gpu_cost_model.hpp wg_group_tiles: the tiles of the launch's groups, on the tensor-core input path as few, in
    fours, as keep the waves of groups of `launch_tiles` (fused_wg_group_size), elsewhere `launch_tiles`."""
    if not tables or row["unbalanced_groups"]:
        return launch_tiles
    blocks = math.ceil(P / (launch_tiles * MULTIPROCESSORS)) * MULTIPROCESSORS
    return min(launch_tiles, math.ceil(math.ceil(P / blocks) / WG_GROUP_WHOLE) * WG_GROUP_WHOLE)


def wg_tc_tables(row):
    """gpu_cost_model.hpp wg_tc_tables: how many tables of B^T (x) B^T the wgmma kernel multiplied the row's
    patches by on its tensor-core input transform (fused_wgmma_kernels.hpp fused_wg_tc_input; the bench's data is
    fp16), 0 where it ran the FP transform. Older files' few such rows were measured before that path existed
    (docs/results/tc_choice/)."""
    m = int(row["transform"][1])
    P = int(row["n"]) * math.ceil(int(row["h"]) / m) * math.ceil(int(row["w"]) / m)
    if not (kernel(row) == "wgmma" and m + 2 == 6 and row["layout"] == "NHWC" and int(row["c"]) == 64 and
            int(row["k"]) <= 64 and wg_launch_tiles(row, P) == 16):
        return 0
    tables = KRONECKER_TERMS.get(row["transform"], 0)
    if tables == 2 and (row["one_kronecker_table"] or math.ceil(P / 16) < WG_TC_TWO_TABLE_GROUPS * MULTIPROCESSORS):
        return 0
    return tables


def sizes(row, ops):
    """What the features are made of: m, n, n * n, N, C, K, H, W, the tiles, the transform's input and
    output operations, the bytes of x and y, and 1.0 for NCHW."""
    m = int(row["transform"][1])
    N, C, K, H, W = (int(row[key]) for key in "nckhw")
    input_ops, output_ops, _ = ops[row["transform"]]
    return (m, m + 2, (m + 2) ** 2, N, C, K, H, W, N * math.ceil(H / m) * math.ceil(W / m), input_ops, output_ops,
            N * C * H * W * 2, N * K * H * W * 2, 1.0 if row["layout"] == "NCHW" else 0.0)


def product_bytes(row, ops):
    """Bytes of one element of M on the 3-pass path (gpu_backend.hip product_element_bytes): 2 where
    the row's file was measured by a runtime that stores M in 16 bits (--narrow-product) and the
    transform fits fp16's budget with it (conv_shape.cpp narrow_product_fits), else 4."""
    narrow = row.get("narrow_product") and 0.7 * 2.0 ** -11 * ops[row["transform"]][2] * math.sqrt(1.5) <= 1e-2
    return 2 if narrow else 4


def features(row, ops, split_coefficients):
    """The model's features of one measured configuration (pad 1, 16-bit storage); the mma.sync
    kernel's row split is the one `split_coefficients` predict fastest."""
    path = kernel(row)
    m, n, nn, N, C, K, H, W, P, input_ops, output_ops, x, y, nchw = sizes(row, ops)
    if path == "wgmma":  # per SM of the persistent grid: its tile groups, and their tiles
        cp, blocks_k = (C + 15) // 16 * 16, (K + 63) // 64
        tables = wg_tc_tables(row)
        group_tiles = wg_group_tiles(row, P, wg_launch_tiles(row, P), tables)
        groups = math.ceil(math.ceil(P / group_tiles) / MULTIPROCESSORS)
        tiles = groups * group_tiles
        return with_slowdown([1.0, 0.0 if tables else tiles * cp * input_ops / 1e6, tiles * nn * cp * 2 / 1e6,
                groups * blocks_k * n * cp / 16 / 1e3, tiles * blocks_k * 64 * output_ops / 1e6,
                tiles * blocks_k * 64 * m * m * 2 / 1e6, (x + y) / 1e6,
                tiles * cp / 1e3 if tables else 0.0, tiles * cp / 1e3 if tables == 2 else 0.0], row, path)
    if path == "3-pass":
        V, U, M = nn * P * C * 2, nn * K * C * 2, nn * P * K * product_bytes(row, ops)
        gemm = 2 * nn * math.ceil(P / 128) * 128 * math.ceil(C / 32) * 32 * math.ceil(K / 64) * 64
        # No transform operations: within a tile size they do not order the 3-pass kernels' times.
        return with_slowdown([1.0, (x + V) / 1e6, (U + V + M) / 1e6, (M + y) / 1e6, gemm / 1e9, (x + V) / 1e6 * nchw,
                              (M + y) / 1e6 * nchw, float(m == 4), float(m == 6), float(m == 8), nchw], row, path)
    return mma_features(row, ops, mma_launch(row, ops, split_coefficients))


def mma_launch(row, ops, split_coefficients):
    """The mma.sync kernel's launch (tile groups, K blocks, chunk, chunked, row split) for the row:
    fused_launch's, or (gpu_cost_model.hpp fastest_fused_launch) of its row splits the one that
    `split_coefficients` predict fastest (the first of equals)."""
    m, n, _, _, C, K, *_ = sizes(row, ops)
    if UNSPLIT:
        return fused_launch(n, C, K) + (1,)
    return min(split_launches(n, m, C, K), key=lambda launch: float(np.dot(mma_features(row, ops, launch), split_coefficients)))


def mma_features(row, ops, launch):
    """The mma.sync kernel's features with `launch` (tile groups, K blocks, chunk, chunked, row split)."""
    m, n, nn, N, C, K, H, W, P, input_ops, output_ops, x, y, nchw = sizes(row, ops)
    groups, k_blocks, chunk, chunked, _ = launch
    cp, kp = (C + 15) // 16 * 16, (K + 15) // 16 * 16
    block_tiles = 16 * groups
    k_slice = min(8 * fused_k_slice(K, launch), kp)
    per_sm = 2 if k_blocks == 1 and not chunked else 1
    blocks = fused_blocks(P, K, launch)
    scale = math.ceil(blocks / (MULTIPROCESSORS * per_sm)) * per_sm  # blocks one SM runs, in waves
    patches = scale * block_tiles * nn * cp * 2 / 1e6
    return with_slowdown([1.0, scale * block_tiles * cp * input_ops / 1e6, scale * 2 * nn * block_tiles * cp * k_slice / 1e9,
                          scale * block_tiles * k_slice * output_ops / 1e6, scale * nn * k_slice * cp * 2 / 1e6, patches,
                          patches * nchw, scale * block_tiles * k_slice * m * m * 2 / 1e6 * nchw, (x + y) / 1e6,
                          float(m == 4), nchw], row, "mma")


def load(paths, mma_only=(), split_with=None, bandwidth=None):
    """Rows of random.csv files, and of frontier.csv files (the benchmark layers, K = C); those of
    `mma_only` files were measured before the wgmma kernel existed. Each row keeps the mma.sync
    coefficients that chose its row split when it was measured (`split_with`: a function of the
    file's path; default: gpu_cost_fit.inc's) and the memory slowdown of the GPU that measured it
    (`bandwidth`: GB/s, a function of the path; default: the reference H200's)."""
    rows = []
    for i, path in enumerate(list(paths) + list(mma_only)):
        coefficients = split_with(path) if split_with else fused_coefficients(DEFAULT_COEFFICIENTS)
        slowdown = memory_slowdown(bandwidth(path) if bandwidth else REFERENCE_GBPS)
        for row in csv.DictReader(gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)):
            if "shape" not in row:  # frontier.csv
                if row["config"] == "cudnn" or float(row["predicted"]) > 1e-2:  # cuDNN; beyond fp16's budget
                    continue
                row.update(shape=f"{row['layer']}{row['channels']}@{row['size']}b{row['batch']}{row['layout']}",
                           n=row["batch"], c=row["channels"], k=row["channels"], h=row["size"], w=row["size"])
            row["shape"] = f"{i}:{row['shape']}"
            row["mma_only"] = i >= len(paths)
            row["narrow_product"] = Path(path).resolve() in NARROW_PRODUCT
            row["wgmma_forced"] = Path(path).resolve() in WGMMA_FORCED
            row["sixteen_tile_groups"] = Path(path).resolve() in SIXTEEN_TILE_GROUPS
            row["one_kronecker_table"] = Path(path).resolve() in ONE_KRONECKER_TABLE
            row["unbalanced_groups"] = Path(path).resolve() in UNBALANCED_GROUPS
            if row["wgmma_forced"] and row["path"] == "fused" and wg_tiles(row) == 8:
                continue  # the wgmma kernel with tile groups of 8: not a configuration the runtime runs
            row["split_with"] = coefficients
            row["slowdown"] = slowdown
            rows.append(row)
    return rows


PATHS = {"3-pass": "kThreePass", "mma": "kFused", "wgmma": "kWgmmaFused"}
PATH_IDS = {"3-pass": 0, "mma": 1, "wgmma": 2}  # gpu_cost_model.hpp CostPath
# The shape correction's domain: the random shapes' ranges (bench_conv.cu), outside which the
# log-features are clamped.
DOMAIN = {"n": (1, 64), "c": (3, 1536), "k": (3, 1536), "h": (2, 256), "w": (2, 256)}
RIDGE = 0.1  # per fitted configuration of a correction group, on every term but the constant
# The shape correction is fitted to order the configurations of a shape, which is all AUTO asks of
# it: a configuration within CONTENDER times its shape's fastest weighs 1, a slower one FAR_WEIGHT.
# 5-fold cross-validation on the H200 and H100 data of docs/results/cost_model/pooled_gpus/ chose
# them, in one-off scripts (90.1 and 89.2 %, against 89.4 and 88.7 % for the per-group correction
# with equal weights fitted before).
CONTENDER = 1.5
FAR_WEIGHT = 0.2


def shape_terms(row):
    """The shape correction's terms: 1, the logs of N, C, K, H, W and the tile count, each size
    clamped to DOMAIN, and the products of every pair of those logs (squares included), in
    gpu_cost_model.hpp shape_terms's order."""
    N, C, K, H, W = (min(max(int(row[key]), DOMAIN[key][0]), DOMAIN[key][1]) for key in "nckhw")
    m = int(row["transform"][1])
    P = N * math.ceil(H / m) * math.ceil(W / m)
    logs = [math.log(v) for v in (N, C, K, H, W, P)]
    return np.array([1.0] + logs + [a * b for a, b in itertools.combinations_with_replacement(logs, 2)])


def correction_group(row):
    """Each (path, output tile side, layout) has its own shape correction."""
    return PATH_IDS[kernel(row)], int(row["transform"][1]), int(row["layout"] == "NCHW")


def row_weight(row):
    """A benchmark layer's rows (their shape names a layer: "@") weigh BENCHMARK_WEIGHT at batch 32 and
    SMALL_BATCH_WEIGHT at other batches, a random shape's 1."""
    if "@" not in row["shape"]:
        return 1.0
    return BENCHMARK_WEIGHT if int(row["n"]) == 32 else SMALL_BATCH_WEIGHT


def fit(rows, ops, correct=True):
    """Per path, the linear model's coefficients (relative least squares); then (`correct`), per
    correction_group, a shape correction: exp of a ridge fit of log(measured / linear prediction) on
    shape_terms (how efficiently each kernel runs a shape, which bytes and operations alone do not
    say). The corrections of all groups are fitted together, each shape's rows less their weighted
    mean (a factor common to a shape's configurations does not change AUTO's choice), the
    contenders weighted above the rest; the one constant this leaves free is then set so that the
    corrections are right on average."""
    coefficients = {"correction": {}}
    named = [r for r in rows if r["config"] == "named"]
    for path in PATHS:
        chosen = [r for r in named if kernel(r) == path]
        X = np.array([features(r, ops, r["split_with"]) for r in chosen])
        t = np.array([float(r["us"]) for r in chosen])
        weight = np.array([row_weight(r) for r in chosen])
        coefficients[path], *_ = np.linalg.lstsq(X * (weight / t)[:, None], weight, rcond=None)
    if not correct:
        return coefficients
    fastest = collections.defaultdict(lambda: math.inf)
    for r in named:
        fastest[r["shape"]] = min(fastest[r["shape"]], float(r["us"]))
    groups = sorted({correction_group(r) for r in named})
    index, terms = {g: i for i, g in enumerate(groups)}, len(shape_terms(named[0]))
    by_shape, sizes = collections.defaultdict(list), collections.Counter()
    for r in named:
        linear = float(np.dot(features(r, ops, r["split_with"]), coefficients[kernel(r)]))
        if linear <= 0:
            continue
        g = index[correction_group(r)]
        x = np.zeros(len(groups) * terms)
        x[g * terms:(g + 1) * terms] = shape_terms(r)
        us = float(r["us"])
        w = row_weight(r) * (1.0 if us <= CONTENDER * fastest[r["shape"]] else FAR_WEIGHT)
        by_shape[r["shape"]].append((x, math.log(us / linear), w))
        sizes[g] += 1
    X, y, w = (np.array([item[k] for items in by_shape.values() for item in items]) for k in range(3))
    X_centred, y_centred = X.copy(), y.copy()
    start = 0
    for items in by_shape.values():
        rows_of_shape = slice(start, start + len(items))
        ws = w[rows_of_shape] / w[rows_of_shape].sum()
        X_centred[rows_of_shape] -= ws @ X[rows_of_shape]
        y_centred[rows_of_shape] -= ws @ y[rows_of_shape]
        start += len(items)
    ridge = np.zeros(X.shape[1])
    for g in range(len(groups)):
        ridge[g * terms:(g + 1) * terms] = RIDGE * sizes[g]
        ridge[g * terms] = 1e-9 * sizes[g]  # the constants: only their differences are fitted here
    beta = np.linalg.solve(X_centred.T @ (X_centred * w[:, None]) + np.diag(ridge), X_centred.T @ (y_centred * w))
    level = float(np.average(y - X @ beta, weights=w))
    for g, group in enumerate(groups):
        coefficients["correction"][group] = beta[g * terms:(g + 1) * terms]
        coefficients["correction"][group][0] += level
    if TREES:
        coefficients["trees"] = fit_trees(named, ops, coefficients)
    return coefficients


# The trees (fit_trees): gradient-boosted regression trees on the log residual of the corrected
# model. Their size by 5-fold cross-validation (--tree-size, docs/results/cost_model/trees/): 200
# trees of at most 15 leaves at a rate of 0.1 choose within 10 % on 92.6 % of the random shapes,
# these 400 of 31 at 0.05 on 93.3 %, 800 of 31 at 0.05 on 93.9 % (twice the nodes), no trees 90.2 %.
TREES = True
TREE_COUNT, TREE_LEAVES, TREE_RATE = 400, 31, 0.05


def tree_features(row, ops, launch, corrected_us):
    """gpu_cost_model.hpp tree_features: what the trees see of a configuration. The path, tile side
    and layout; the logs of N, C, K, H, W and the tiles; C and K modulo 16 and 64 (padding); the
    blocks (tile groups of 16 for wgmma, GEMM tiles of 128 x 128 for 3-pass) in waves over the SMs
    and the last wave's fill; the transform's operations; the GPU's memory slowdown; the mma.sync
    launch (tile groups, K blocks, chunked, row split; zeros on the other paths); for NCHW images
    whether the 3-pass input transform takes tile pairs and the output stores runs (fp16: 2-byte
    elements); and the log of the corrected prediction."""
    m, n, nn, N, C, K, H, W, P, input_ops, output_ops, x, y, nchw = sizes(row, ops)
    path = kernel(row)
    groups = k_blocks = chunked = split = 0
    if path == "mma":
        groups, k_blocks, _, chunked, split = launch
        waves = fused_blocks(P, K, launch) / (MULTIPROCESSORS * (2 if k_blocks == 1 and not chunked else 1))
    elif path == "wgmma":
        waves = math.ceil(P / wg_group_tiles(row, P, wg_launch_tiles(row, P), wg_tc_tables(row))) / MULTIPROCESSORS
    else:
        waves = math.ceil(P / 128) * math.ceil(K / 128) / MULTIPROCESSORS
    return [PATH_IDS[path], m, nchw, math.log(N), math.log(C), math.log(K), math.log(H), math.log(W), math.log(P),
            C % 16, K % 16, C % 64, K % 64, waves, waves - math.floor(waves), input_ops, output_ops, row["slowdown"],
            groups, k_blocks, float(chunked), split, *nchw_runs(m, n, W, nchw), math.log(max(corrected_us, 1e-3))]


def output_run_length(m, element_bytes):
    """kernel_table.hpp output_run_length: the largest power of two dividing m within 16 bytes."""
    run = 1
    while m % (2 * run) == 0 and 2 * run * element_bytes <= 16:
        run *= 2
    return run


def nchw_runs(m, n, W, nchw):
    """Whether an NCHW image (pad 1: the output as wide as the input) takes the input transform in
    tile pairs (kernel_table.hpp nchw_rows_in_tile_pairs) and the output stores in runs."""
    run = output_run_length(m, 2)
    pairs = nchw and n <= 8 and math.ceil(W / m) % 2 == 0 and W % 2 == 0
    return float(pairs), float(bool(nchw) and run > 1 and W % run == 0)


def corrected_us(row, ops, coefficients, split_coefficients):
    """The linear prediction times the shape correction, and the mma.sync launch (None elsewhere)."""
    launch = mma_launch(row, ops, split_coefficients) if kernel(row) == "mma" else None
    f = mma_features(row, ops, launch) if launch else features(row, ops, split_coefficients)
    linear = float(np.dot(f, coefficients[kernel(row)]))
    beta = coefficients["correction"].get(correction_group(row))
    return (linear if beta is None else linear * math.exp(float(np.dot(shape_terms(row), beta)))), launch


def fit_trees(named, ops, coefficients):
    """Gradient-boosted trees (scikit-learn's HistGradientBoostingRegressor, deterministic: no
    sampling, no early stopping) fitted to log(measured / corrected prediction) of every measured
    configuration, weighted as row_weight: the corrected model's errors that depend on more than the
    sizes' logs (waves, padding, launches, the transform). Returned as (baseline, nodes, roots),
    nodes (feature, threshold, left, right) with feature -1 and the value as threshold at a leaf
    (gpu_cost_fit.inc writes each number in the digits that give back the same double)."""
    from sklearn.ensemble import HistGradientBoostingRegressor  # Debian: python3-sklearn
    X, y, w = [], [], []
    for r in named:
        corrected, launch = corrected_us(r, ops, coefficients, r["split_with"])
        X.append(tree_features(r, ops, launch, corrected))
        y.append(math.log(float(r["us"])) - X[-1][-1])
        w.append(row_weight(r))
    X = np.array(X)
    model = HistGradientBoostingRegressor(max_iter=TREE_COUNT, max_leaf_nodes=TREE_LEAVES, learning_rate=TREE_RATE,
                                          min_samples_leaf=20, l2_regularization=1.0, early_stopping=False, random_state=0)
    model.fit(X, np.array(y), sample_weight=np.array(w))
    nodes, roots = [], []
    for (tree,) in model._predictors:  # one tree an iteration (scikit-learn's TreePredictor.nodes)
        roots.append(len(nodes))
        for node in tree.nodes:
            if node["is_leaf"]:
                nodes.append((-1, float(node["value"]), 0, 0))
            else:
                nodes.append((int(node["feature_idx"]), float(node["num_threshold"]), roots[-1] + int(node["left"]),
                              roots[-1] + int(node["right"])))
    trees = (float(np.ravel(model._baseline_prediction)[0]), nodes, roots)
    assert np.allclose(tree_residuals(trees, X), model.predict(X), rtol=0, atol=1e-9), "the exported trees disagree with the fit"
    return trees


def tree_residuals(trees, X):
    """The trees' sum for each row of X (gpu_cost_model.hpp tree_residual), all rows at once."""
    baseline, nodes, roots = trees
    feature, threshold, left, right = (np.array([node[i] for node in nodes]) for i in range(4))
    total = np.full(len(X), baseline)
    rows = np.arange(len(X))
    for root in roots:
        at = np.full(len(X), root)
        while (inner := feature[at] >= 0).any():
            goes_left = X[rows, np.where(inner, feature[at], 0)] <= threshold[at]
            at = np.where(inner, np.where(goes_left, left[at], right[at]), at)
        total += threshold[at]
    return total


def predicted_us(rows, ops, coefficients, split_of=lambda row: None):
    """The runtime's predictions for `rows` (gpu_cost_model.hpp): the path's linear model times its
    shape correction times exp of the trees, the row split chosen by split_of(row) (None: by the
    fitted coefficients, as the runtime will)."""
    corrected, X = [], []
    for r in rows:
        split = split_of(r)
        us, launch = corrected_us(r, ops, coefficients, coefficients["mma"] if split is None else split)
        corrected.append(us)
        X.append(tree_features(r, ops, launch, us))
    corrected = np.array(corrected)
    if "trees" not in coefficients or not rows:
        return corrected
    return np.exp(np.log(np.maximum(corrected, 1e-3)) + tree_residuals(coefficients["trees"], np.array(X)))


def print_errors(rows, ops, coefficients):
    """Each path's prediction error on `rows` (the launches that ran): of the time, |predicted /
    measured - 1|, and of the time relative to the shape's fastest configuration (what AUTO's choice
    depends on), |(predicted / predicted of the fastest) / (measured / fastest) - 1|."""
    named = [r for r in rows if r["config"] == "named"]
    predicted = dict(zip(map(id, named), predicted_us(named, ops, coefficients, lambda r: r["split_with"])))
    fastest = {}
    for r in named:
        if r["shape"] not in fastest or float(r["us"]) < float(fastest[r["shape"]]["us"]):
            fastest[r["shape"]] = r
    for path in PATHS:
        chosen = [r for r in named if kernel(r) == path]
        errors = [abs(predicted[id(r)] / float(r["us"]) - 1) for r in chosen]
        relative = [abs(predicted[id(r)] / predicted[id(f)] * float(f["us"]) / float(r["us"]) - 1)
                    for r in chosen for f in [fastest[r["shape"]]]]
        print(f"# {path}: {len(chosen)} measured configurations, prediction error median "
              f"{100 * np.median(errors):.1f}%, 90th percentile {100 * np.percentile(errors, 90):.1f}%; "
              f"relative to the shape's fastest: median {100 * np.median(relative):.1f}%, "
              f"90th percentile {100 * np.percentile(relative, 90):.1f}%")


def choices(rows, ops, coefficients):
    """Per shape of `rows`: (the measured time of the model's choice over the fastest, shape, its
    transform, its path). The runtime ranks configurations (conv_shape.cpp, ranked_transforms) by
    predicted time, then transform operations (the fused path only), then amp2D, then name."""
    named = [r for r in rows if r["config"] == "named"]
    predicted = dict(zip(map(id, named), predicted_us(named, ops, coefficients)))

    def key(r):
        input_ops, output_ops, amp2d = ops[r["transform"]]
        return predicted[id(r)], input_ops + output_ops if r["path"] == "fused" else 0, amp2d, r["transform"]

    shapes = collections.defaultdict(list)
    for r in named:
        shapes[r["shape"]].append(r)
    ratios = []
    for shape, configs in shapes.items():
        fastest = min(float(r["us"]) for r in configs)
        pick = min(configs, key=key)
        ratios.append((float(pick["us"]) / fastest, shape, pick["transform"], pick["path"]))
    return ratios


def check(rows, ops, coefficients):
    ratios = sorted(choices(rows, ops, coefficients))
    within = sum(r[0] <= 1.10 for r in ratios)
    print(f"model's choice within 10% of the fastest on {within} of {len(ratios)} shapes "
          f"({100.0 * within / len(ratios):.1f}%); median {ratios[len(ratios) // 2][0]:.3f}x, worst {ratios[-1][0]:.2f}x "
          f"({ratios[-1][2]} {ratios[-1][3]})")


def write_fit(path, coefficients, arguments):
    """gpu_cost_fit.inc: the fitted coefficients, shape corrections and trees as the C++ initialisers
    gpu_cost_model.hpp includes, written to a temporary file and renamed."""
    lines = ["// Generated by tools/device/fit_cost_model.py: do not edit; fit again instead. Its arguments",
             "// (paths from docs/results/cost_model/):"]
    lines += textwrap.wrap(arguments, 100, initial_indent="//   ", subsequent_indent="//   ", break_on_hyphens=False)
    lines.append("// Included by gpu_cost_model.hpp inside namespace nova::runtime.")
    numbers = lambda values: ", ".join(repr(float(v)) for v in values)  # noqa: E731 (digits that give back each double)
    wrapped = lambda text, indent="    ": textwrap.wrap(text, 118, initial_indent=indent, subsequent_indent="    ",  # noqa: E731
                                                      break_long_words=False, break_on_hyphens=False)
    for p, name in PATHS.items():
        lines += wrapped(f"inline constexpr std::array<double, {len(coefficients[p])}> {name}Coefficients = "
                         f"{{{numbers(coefficients[p])}}};", "")
    lines.append("inline constexpr ShapeCorrection kShapeCorrections[] = {")
    for (p, m, nchw), beta in coefficients["correction"].items():
        lines += wrapped(f"{{{p}, {m}, {nchw}, {{{numbers(beta)}}}}},")
    lines.append("};")
    baseline, nodes, roots = coefficients["trees"]
    lines.append(f"inline constexpr double kCostTreeBaseline = {numbers([baseline])};")
    lines += wrapped(f"inline constexpr int kCostTreeRoots[] = {{{', '.join(map(str, roots))}}};", "")
    lines.append("inline constexpr CostTreeNode kCostTreeNodes[] = {")
    lines += wrapped(", ".join(f"{{{f}, {numbers([t])}, {l}, {r}}}" for f, t, l, r in nodes) + ",")
    lines.append("};")
    temporary = path.with_suffix(".tmp")
    temporary.write_text("\n".join(lines) + "\n")
    temporary.replace(path)
    print(f"wrote {path}")


def main():
    global UNSPLIT, BENCHMARK_WEIGHT, SMALL_BATCH_WEIGHT, TREES, TREE_COUNT, TREE_LEAVES, TREE_RATE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("train", nargs="+", help="random.csv and frontier.csv files to fit")
    parser.add_argument("--mma-only", nargs="+", default=[],
                        help="more training files, measured before the wgmma kernel (every fused row ran mma.sync)")
    parser.add_argument("--check", nargs="+", default=[], help="random.csv files of held-out shapes")
    parser.add_argument("--unsplit", action="store_true",
                        help="every file was measured before the runtime split the fused kernel's rows on small grids")
    parser.add_argument("--chosen-with", action="append", nargs="+", default=[], metavar=("COEFFICIENTS", "CSV"),
                        help="a file with the kFusedCoefficients of the build that measured the CSV files named "
                             "after it (all files not named elsewhere where none are named; default: "
                             "gpu_cost_fit.inc's); may be repeated")
    parser.add_argument("--benchmark-weight", type=float, default=BENCHMARK_WEIGHT, metavar="W",
                        help=f"the weight of each benchmark layer's rows (default {BENCHMARK_WEIGHT:g}; fits before "
                             "2026-11-26's pooled one used 10)")
    parser.add_argument("--small-batch-weight", type=float, default=SMALL_BATCH_WEIGHT, metavar="W",
                        help=f"the weight of each benchmark layer's rows at batches other than 32 (default "
                             f"{SMALL_BATCH_WEIGHT:g})")
    parser.add_argument("--narrow-product", nargs="+", default=[], metavar="CSV",
                        help="files (among those given) measured by a runtime that stores the 3-pass M in 16 bits "
                             "where fp16's budget allows; the rest had M in fp32")
    parser.add_argument("--wgmma-forced", nargs="+", default=[], metavar="CSV",
                        help="files measured with NOVA_FUSED_KERNEL=wgmma before the bench named the fused kernel")
    parser.add_argument("--sixteen-tile-groups", nargs="+", default=[], metavar="CSV",
                        help="files measured before the wgmma kernel took groups of 8 on one-wave grids")
    parser.add_argument("--one-kronecker-table", nargs="+", default=[], metavar="CSV",
                        help="files measured before the wgmma kernel's tensor-core input path took B^T (x) B^T as two "
                             "tables")
    parser.add_argument("--unbalanced-groups", nargs="+", default=[], metavar="CSV",
                        help="files measured before the wgmma kernel's tensor-core launches balanced their tile groups "
                             "over the grid's waves")
    parser.add_argument("--bandwidth", action="append", nargs="+", default=[], metavar=("GBPS", "CSV"),
                        help="the peak memory bandwidth (GB/s) of the GPU that measured the CSV files named after "
                             f"it (default: the H200's {REFERENCE_GBPS:g}); may be repeated")
    parser.add_argument("--no-correction", action="store_true", help="the linear model alone, no shape correction")
    parser.add_argument("--no-trees", action="store_true", help="no trees on the corrected model")
    parser.add_argument("--tree-size", nargs=3, type=float, metavar=("COUNT", "LEAVES", "RATE"),
                        default=(TREE_COUNT, TREE_LEAVES, TREE_RATE),
                        help=f"trees, leaves a tree at most, learning rate (default {TREE_COUNT} {TREE_LEAVES} {TREE_RATE:g})")
    parser.add_argument("--write", metavar="INC", help="write the fit as C++ initialisers (runtime/src/gpu_cost_fit.inc)")
    parser.add_argument("--cv", type=int, default=0, metavar="FOLDS", help="k-fold cross-validation of the choice")
    args = parser.parse_args()
    print("# fit_cost_model.py " + " ".join(sys.argv[1:]))
    UNSPLIT, BENCHMARK_WEIGHT, SMALL_BATCH_WEIGHT = args.unsplit, args.benchmark_weight, args.small_batch_weight
    TREES = not args.no_trees and not args.no_correction
    if TREES and importlib.util.find_spec("sklearn") is None:  # found now, not after minutes of loading and fitting
        parser.error("the trees need scikit-learn (Debian: apt-get install python3-sklearn); --no-trees fits without")
    TREE_COUNT, TREE_LEAVES, TREE_RATE = int(args.tree_size[0]), int(args.tree_size[1]), args.tree_size[2]
    NARROW_PRODUCT.update(Path(path).resolve() for path in args.narrow_product)
    WGMMA_FORCED.update(Path(path).resolve() for path in args.wgmma_forced)
    SIXTEEN_TILE_GROUPS.update(Path(path).resolve() for path in args.sixteen_tile_groups)
    ONE_KRONECKER_TABLE.update(Path(path).resolve() for path in args.one_kronecker_table)
    UNBALANCED_GROUPS.update(Path(path).resolve() for path in args.unbalanced_groups)
    ops = transform_ops()
    named = {Path(csv_path).resolve(): fused_coefficients(group[0]) for group in args.chosen_with for csv_path in group[1:]}
    default = fused_coefficients(next((group[0] for group in args.chosen_with if len(group) == 1), DEFAULT_COEFFICIENTS))
    gbps = {Path(csv_path).resolve(): float(group[0]) for group in args.bandwidth for csv_path in group[1:]}
    bandwidth = lambda path: gbps.get(Path(path).resolve(), REFERENCE_GBPS)  # noqa: E731
    train = load(args.train, args.mma_only, lambda path: named.get(Path(path).resolve(), default), bandwidth)
    coefficients = fit(train, ops, not args.no_correction)
    print_errors(train, ops, coefficients)
    for path, name in PATHS.items():
        values = ", ".join(f"{c:.6g}" for c in coefficients[path])
        print(f"{name}Coefficients = {{{values}}};")
    if "trees" in coefficients:
        print(f"trees: {len(coefficients['trees'][2])}, {len(coefficients['trees'][1])} nodes")
    if args.write:
        write_fit(Path(args.write), coefficients, " ".join(sys.argv[1:]))
    print("training shapes: ", end="")
    check(train, ops, coefficients)
    for path in args.check:
        print(f"{'training' if path in args.train else 'held-out'} shapes of {Path(path).name}: ", end="")
        check(load([path], bandwidth=bandwidth), ops, coefficients)
    held_out = [path for path in args.check if path not in args.train]
    if len(held_out) > 1:
        print("held-out shapes, all: ", end="")
        check(load(held_out, bandwidth=bandwidth), ops, coefficients)
    if args.cv:
        shapes = sorted({r["shape"] for r in train if "@" not in r["shape"]})
        random.Random(1).shuffle(shapes)
        slowdown = {r["shape"]: r["slowdown"] for r in train}
        within, count = collections.Counter(), collections.Counter()
        for fold in range(args.cv):
            held = set(shapes[fold::args.cv])
            fitted = fit([r for r in train if r["shape"] not in held], ops, not args.no_correction)
            for ratio, shape, *_ in choices([r for r in train if r["shape"] in held], ops, fitted):
                within[slowdown[shape]] += ratio <= 1.10
                count[slowdown[shape]] += 1
        total = sum(within.values())
        print(f"{args.cv}-fold cross-validation: model's choice within 10% of the fastest on {total} of "
              f"{len(shapes)} shapes ({100.0 * total / len(shapes):.1f}%)")
        if len(count) > 1:
            for value in sorted(count):
                print(f"  of them on the GPU of {REFERENCE_GBPS / (1 + value):.0f} GB/s: {within[value]} of {count[value]} "
                      f"({100.0 * within[value] / count[value]:.1f}%)")


if __name__ == "__main__":
    sys.exit(main())
