#!/usr/bin/env bash
# Packs staged builds for an A/B in one device call where their archives and the tree would pass the
# device tool's 64 MiB: .device/base (the committed build) as .device/base.tar.xz, and each NAME given (a
# build staged by tools/device/build_gpu.sh and renamed from build-cuda, or build-cuda itself) as
# .device/NAME.patch.xz, a git binary delta from base's tar (4-6 MB where only kernels changed), both
# without the GPU tests (an A/B needs the runtime, jit and bench alone). tools/device/stage.sh's
# use_stage rebuilds NAME from it there (git apply: the GPU machine has git, not zstd or xdelta).
# Usage: tools/device/pack_ab.sh NAME...   (carry .device/base.tar.xz, each .device/NAME.patch.xz and
# .device/build-cuda.path)
set -euo pipefail
cd "$(dirname "$0")/../../.device"
tar cf base.tar --exclude=base/tests base
xz -9e -T2 -kf base.tar
work=$(mktemp -d)
mkdir "$work/a" "$work/b"
cp base.tar "$work/a/build.tar"
for name in "$@"; do
  tar cf "$work/b/build.tar" --exclude="$name/tests" "$name"
  (cd "$work" && git diff --no-index --binary a/build.tar b/build.tar || [ $? = 1 ]) | xz -9e -T2 >"$name.patch.xz"
done
rm -rf "$work" base.tar
ls -la base.tar.xz "${@/%/.patch.xz}"
