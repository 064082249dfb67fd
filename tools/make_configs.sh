#!/usr/bin/env bash
# Regenerates the evaluated (not searched) configs in configs/: standard integer sets, the paper's
# discovered sets (Table 2), its dyadic F(4,3) set, and the classic NNPACK/wincnn F(6,3) set.
# Usage: tools/make_configs.sh [path/to/nova-discover]
set -euo pipefail
cd "$(dirname "$0")/.."
discover=${1:-build/discover/nova-discover}
run() { "$discover" --quiet "$@"; }

for tile in 2,3 4,3 6,3 8,3; do run --tile "$tile" --points standard; done
run --tile 4,3 --name nova --points 0,5/6,-5/6,7/6,-7/6
run --tile 6,3 --name nova --points 0,3/5,-3/5,1,-1,7/6,-7/6
run --tile 8,3 --name nova --points 0,2/5,-2/5,5/6,-5/6,1,-1,7/6,-7/6
run --tile 4,3 --name nova_dyadic --points 0,3/4,-3/4,5/4,-5/4
run --tile 6,3 --name nnpack --points 0,1,-1,2,-2,1/2,-1/2
"$discover" verify --quiet configs/*.json
echo "configs/: $(ls configs/*.json | wc -l) verified configs"
