#!/usr/bin/env bash
# On the GPU machine (device tool), with .device/ carried (tools/device/build_gpu.sh staged it): the
# mma.sync fused kernel's row split (fused_split_launch in fused_kernels.hpp, chosen per forward by
# the cost model's fastest_fused_launch). Runs nova-bench-conv on each benchmark layer at the given
# batches (default 1, 8 and 32) once with the runtime's choice and once with each forced row split
# (NOVA_FUSED_ROW_SPLIT=1, 2, 4, 8; 1 is fused_launch's launch, the only one before splits). Every
# run's rows, with a `split` column, go to $OUT/row_split.csv, and tools/device/bench_tables.py prints
# them (the NHWC times side by side, and each split's geometric means against cuDNN).
# Usage: tools/device/bench_row_split.sh [BATCH...]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench-out}
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
. tools/device/stage.sh
use_stage build-cuda
batches=("$@")
[ ${#batches[@]} -gt 0 ] || batches=(1 8 32)
layers=(64,56 128,28 256,14 512,7 64,224 128,112 256,56 512,28 512,14)
for split in choice 1 2 4 8; do
  for batch in "${batches[@]}"; do
    for layer in "${layers[@]}"; do
      dir="$runs/$split/b$batch-${layer/,/x}"
      mkdir -p "$dir"
      if [ "$split" = choice ]; then unset NOVA_FUSED_ROW_SPLIT; else export NOVA_FUSED_ROW_SPLIT=$split; fi
      LD_LIBRARY_PATH="$stage/runtime:${LD_LIBRARY_PATH:-}" "$stage/tools/device/nova-bench-conv" "$dir" \
        --layer "$layer,$batch" >"$dir/log.txt" 2>&1 || { cat "$dir/log.txt"; exit 1; }
    done
  done
done
mkdir -p "$out"
python3 - "$runs" "$out/row_split.csv" <<'EOF'
import csv, sys
from pathlib import Path
with open(sys.argv[2], "w", newline="") as table:
    writer = None
    for split in ["choice", "1", "2", "4", "8"]:
        for f in sorted((Path(sys.argv[1]) / split).glob("*/speed.csv")):
            for r in csv.DictReader(open(f)):
                if writer is None:
                    writer = csv.DictWriter(table, ["split"] + list(r))
                    writer.writeheader()
                writer.writerow({"split": split, **r})
EOF
python3 tools/device/bench_tables.py "$out"
