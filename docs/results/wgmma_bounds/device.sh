#!/usr/bin/env bash
# Bounds of the wgmma kernel (experiment.patch): its time with U copied into the ring once and never
# again (wgb_u_once: no U traffic, no U latency), with the producers handing the V slots over without
# loading or transforming x (wgb_no_input), with the consumer's rows never folded into the outputs
# (wgb_no_fold), and with both of the last two (wgb_no_fold_input), against the same build without any
# (wgb_base). The wgmma kernel forced, f4x3_standard, both layouts, graph replay, the builds in turn,
# twice. On the GPU machine with .device/wgb_*.tar.xz carried; prints one line a layer, layout, build
# and run. VARIANTS="base ..." times those builds only (another NAME: .device/wgb_NAME.tar.xz), LAYERS="C,HW,N ..."
# those layers, DTYPE=bf16 in bf16 (default fp16).
set -uo pipefail
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for run in 1 2; do
  for layer in ${LAYERS:-64,224,32 128,112,32 64,56,32 64,224,8 64,224,1}; do
    for variant in ${VARIANTS:-base u_once no_input no_fold no_fold_input}; do
      use_stage wgb_$variant
      dir=$(mktemp -d)
      stage_bench "$dir" --layer $layer --transform f4x3_standard --dtype "${DTYPE:-fp16}" >"$dir/log.txt" 2>&1
      awk -F, -v v=$variant -v r=$run '$5 ~ /-f$/ { printf "run %s %-8s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, v, $1, $2, $3, $4, $5, $10, $11 }' "$dir/speed.csv"
    done
  done
done
