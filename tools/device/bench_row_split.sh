#!/usr/bin/env bash
# On the GPU machine (device tool), with .device/ carried (tools/device/build_gpu.sh staged it): the
# mma.sync fused kernel's row split (fused_split_launch in fused_kernels.hpp, chosen per forward by
# the cost model's fastest_fused_launch). Runs nova-bench-conv on each benchmark layer at the given
# batches (default 1, 8 and 32) once with the runtime's choice and once with each forced row split
# (NOVA_FUSED_ROW_SPLIT=1, 2, 4, 8; 1 is fused_launch's launch, the only one before splits), and
# prints the NHWC graph-replay times (fused forced, and AUTO) side by side. Every run's rows, with a
# `split` column, go to $OUT/row_split.csv.
# Usage: tools/device/bench_row_split.sh [BATCH...]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench-out}
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
stage=.device/build-cuda
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
root = Path(sys.argv[1])
splits = ["choice", "1", "2", "4", "8"]
rows = {}
with open(sys.argv[2], "w", newline="") as table:
    writer = None
    for split in splits:
        for f in sorted((root / split).glob("*/speed.csv")):
            for r in csv.DictReader(open(f)):
                if writer is None:
                    writer = csv.DictWriter(table, ["split"] + list(r))
                    writer.writeheader()
                writer.writerow({"split": split, **r})
                key = (int(r["batch"]), int(r["channels"]), int(r["size"]), r["layout"])
                rows.setdefault(key, {})[split] = (float(r["nova_graph_us"]), r["transform"], float(r["cudnn_graph_us"]))
print("fused-forced (NHWC-f) and AUTO (NHWC) graph-replay µs by row split (choice: the cost model's, fastest_fused_launch)")
print(f"{'batch':>5} {'C':>4} {'HW':>4} {'layout':>7} " + " ".join(f"{s:>8}" for s in splits) + "   cuDNN")
for key in sorted(rows):
    if key[3] not in ("NHWC-f", "NHWC"):
        continue
    cells = rows[key]
    cudnn = min(v[2] for v in cells.values())
    print(f"{key[0]:>5} {key[1]:>4} {key[2]:>4} {key[3]:>7} " +
          " ".join(f"{cells[s][0]:8.1f}" if s in cells else f"{'-':>8}" for s in splits) + f" {cudnn:7.1f}")
EOF
