# Sourced by the scripts that run on the GPU machine: `use_stage NAME` sets $stage to .device/NAME, a
# build that tools/device/build_gpu.sh staged, and unpacks it from .device/NAME.tar.xz where only the
# archive was carried (the device tool carries at most 64 MiB with the tree; the archive is a
# quarter of the folder).
use_stage() {
  stage=.device/$1
  if [ ! -d "$stage" ]; then
    [ -f "$stage.tar.xz" ] || { echo "no $stage or $stage.tar.xz: run tools/device/build_gpu.sh and carry one" >&2; exit 1; }
    tar xJf "$stage.tar.xz" -C .device
  fi
}
# `use_base`: .device/base, the committed build an A/B compares the staged one with, unpacked from
# .device/base.tar.xz where only the archive was carried.
use_base() {
  [ -d .device/base ] || tar xJf .device/base.tar.xz -C .device
}
