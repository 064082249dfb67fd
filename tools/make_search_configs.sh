#!/usr/bin/env bash
# Regenerates the discovered configs in configs/ with nova-discover's search pipeline:
#   f<m>x<r>_kappa         the paper's objective, kappa2(V)           F(4,3) F(6,3) F(8,3) F(4,5) F(6,5)
#   f<m>x<r>_fp16          amp2D, the fp16 error amplification        F(4,3) F(6,3) F(8,3)
#   f<m>x<r>_fp16_dyadic   amp2D with fp16-exact (dyadic) points      F(4,3); for F(6,3) the fp16 optimum
#                          is already dyadic, so f6x3_fp16_dyadic is an alias of f6x3_fp16 (one name per
#                          transform: nova-codegen refuses two configs of the same transform)
#   f<m>x<r>_fp16_tc       amp2D with fp16-exact points whose B^T (x) B^T is one fp16 table (--tensor-core), the
#                          symmetric stage only (butterflies: as few transform operations as the standard
#                          set's) F(4,3); its bf16 products fit one bf16 table too
#   f<m>x<r>_kappa_dyadic  kappa2(V) with fp16-exact points (paper 4.3) F(4,3) F(6,3)
#   f<m>x<r>_bf16          amp2D within bf16's range (--objective bf16) F(4,3) F(6,3): both searches land on
#                          the fp16 optimum (same points and scaling: bf16's wider range binds nowhere), so
#                          f4x3_bf16 and f6x3_bf16 are aliases of f4x3_fp16 and f6x3_fp16; the end of this
#                          script checks that they still are
# Every run is deterministic for its seed; the files are then re-verified exactly.
# Usage: tools/make_search_configs.sh [path/to/nova-discover]
set -euo pipefail
cd "$(dirname "$0")/.."
discover=${1:-build/discover/nova-discover}
search() { "$discover" --quiet --seed 1 "$@"; }

for tile in 4,3 6,3 8,3 4,5 6,5; do search --tile "$tile" --objective kappa; done
search --tile 4,3 --objective fp16 --alias f4x3_bf16
search --tile 6,3 --objective fp16 --alias f6x3_fp16_dyadic --alias f6x3_bf16
search --tile 8,3 --objective fp16
search --tile 4,3 --objective fp16 --dtype fp16
search --tile 4,3 --objective fp16 --dtype fp16 --tensor-core --symmetric-only --name fp16_tc
for tile in 4,3 6,3; do search --tile "$tile" --objective kappa --dtype fp16; done
# What names a transform: its points and scaling, one line each in the JSON.
transform_of() { grep -E '^  "(points|scaling)":'; }
for m in 4 6; do
  if [ "$(search --tile "$m,3" --objective bf16 --dry-run --format json | transform_of)" != \
       "$(transform_of < "configs/f${m}x3_fp16.json")" ]; then
    echo "the bf16 search of F($m,3) no longer finds f${m}x3_fp16: write it as its own config, not an alias" >&2
    exit 1
  fi
done
"$discover" verify --quiet configs/*.json
echo "configs/: $(ls configs/*.json | wc -l) verified configs"
