# Sourced by tools/device/build_gpu.sh and build_small.sh, from the repository root:
# `build_and_stage SOURCE_TREE BUILD_DIR NAME [cmake arguments...]` configures and builds the CUDA flavour
# (nvcc, sm_90a) of SOURCE_TREE in BUILD_DIR, the targets in the caller's `targets` array, and stages what
# of them the GPU machine runs as .device/NAME (the runtime, the JIT, the bench, and where built the GPU
# tests with their ctest files and the nova_torch package), stripped, with the build tree's absolute path in
# .device/NAME.path (ctest files name it; tools/device/run_gpu_tests.sh maps it there), packed as
# .device/NAME.tar.xz for the device tool's 64 MiB (tools/device/stage.sh unpacks it there).
build_and_stage() {
  local src=$1 build=$2 name=$3
  shift 3
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DNOVA_WARNINGS_AS_ERRORS=ON "$@" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
  local stage=.device/$name
  rm -rf "$stage" && mkdir -p "$stage/runtime" "$stage/jit" "$stage/tools/device"
  cp -P "$build"/runtime/libnova_runtime.so* "$stage/runtime/"
  cp -P "$build"/jit/libnova_jit.so* "$stage/jit/"
  cp "$build/tools/device/nova-bench-conv" "$stage/tools/device/"
  local binaries=("$stage"/runtime/libnova_runtime.so* "$stage"/jit/libnova_jit.so* "$stage/tools/device/nova-bench-conv")
  if [ -f "$build/jit/nova-jit" ]; then
    cp "$build/jit/nova-jit" "$stage/jit/" && binaries+=("$stage/jit/nova-jit")
  fi
  if [ -f "$build/tests/gpu/nova_runtime_gpu_tests" ]; then
    mkdir -p "$stage/tests/gpu"
    cp -r "$build/pytorch/nova_torch" "$stage/"  # the package; NOVA_RUNTIME_LIBRARY names the carried library
    cp "$build"/tests/gpu/nova_runtime_gpu_tests "$build"/tests/gpu/nova_transform_kernels_gpu "$build"/tests/gpu/*.cmake \
      "$stage/tests/gpu/"
    echo 'subdirs("tests/gpu")' >"$stage/CTestTestfile.cmake"  # the GPU tests only
    binaries+=("$stage"/tests/gpu/nova_runtime_gpu_tests "$stage"/tests/gpu/nova_transform_kernels_gpu)
  fi
  # Symbol tables are of no use there, and the device tool carries at most 64 MiB with the tree.
  strip --strip-unneeded "${binaries[@]}"
  realpath "$build" >"$stage.path"
  XZ_OPT=${XZ_OPT:--T0} tar cJf "$stage.tar.xz" -C .device "$name"
  echo "staged $(du -sh "$stage" | cut -f1) in $stage, $(du -sh "$stage.tar.xz" | cut -f1) as $stage.tar.xz"
}
