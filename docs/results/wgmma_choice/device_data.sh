#!/usr/bin/env bash
# Training data for AUTO's choice between the two fused kernels (the wgmma kernel where the cost model
# prices it faster than the mma.sync one: gpu_cost_model.hpp fused_runs_wgmma), on the GPU machine
# from the repository root with .device/build-cuda.tar.xz and .device/build-cuda.path carried. The
# bench now times every named fused configuration on each fused kernel that runs it (csv column
# `kernel`): the frontier of the benchmark layers at batches 32, 8 and 1 (frontier_bB.csv, .log), then
# tools/device/auto_random.sh for each seed in SEEDS while less than BUDGET seconds (default 500) have
# passed (randS_new.csv.gz, .log). Everything is packed into $OUT/r.tar.gz. The loops are
# tools/device/cost_model_data.sh's (which also takes seeds of the tensor-core input path's shapes).
BUDGET=${BUDGET:-500} exec tools/device/cost_model_data.sh
