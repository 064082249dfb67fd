# Sourced by the scripts that run on the GPU machine: `use_stage NAME` sets $stage to .device/NAME, a
# build that tools/device/build_gpu.sh staged, after `unpack_stage NAME`, which unpacks it from
# .device/NAME.tar.xz where only the archive was carried (the device tool carries at most 64 MiB with
# the tree; the archive is a quarter of the folder).
# A build packed by tools/device/pack_ab.sh as a delta from base (.device/NAME.patch.xz) is rebuilt
# from .device/base.tar.xz.
unpack_stage() {
  local dir=.device/$1
  if [ ! -d "$dir" ]; then
    if [ -f "$dir.tar.xz" ]; then
      tar xJf "$dir.tar.xz" -C .device
    elif [ -f "$dir.patch.xz" ]; then
      local work
      work=$(mktemp -d)
      xz -dc .device/base.tar.xz >"$work/build.tar"
      xz -dc "$dir.patch.xz" | (cd "$work" && git apply -p2 --unsafe-paths)
      tar xf "$work/build.tar" -C .device && rm -rf "$work"
    else
      echo "no $dir, $dir.tar.xz or $dir.patch.xz: run tools/device/build_gpu.sh and carry one" >&2
      exit 1
    fi
  fi
}
use_stage() {
  unpack_stage "$1"
  stage=.device/$1
}
# `use_base`: .device/base, the committed build an A/B compares the staged one with, unpacked from
# .device/base.tar.xz where only the archive was carried (BASE=NAME in the environment: .device/NAME instead,
# a small build of tools/device/build_small.sh, say); $base is its folder.
use_base() {
  unpack_stage "${BASE:-base}"
  base=.device/${BASE:-base}
}
# `use_base_if_named BUILDS...`: use_base where the list of builds names base (a run of the staged build
# alone then needs no base carried).
use_base_if_named() { [[ " $* " != *" base "* ]] || use_base; }
# `stage_bench ARGS...`: the staged build's nova-bench-conv with its own libraries (after use_stage).
stage_bench() { LD_LIBRARY_PATH=$stage/runtime:$stage/jit "$stage/tools/device/nova-bench-conv" "$@"; }
