#!/usr/bin/env bash
# The one script to run on a machine with an AMD Instinct MI300X (gfx942) and ROCm: checks ROCm's
# version and the GPU, builds NOVA for AMD (NOVA_ENABLE_HIP=ON: CMake's HIP language, hipBLAS), runs
# `ctest -L gpu` (the GPU tests), the CPU tests (`ctest -LE gpu`), and the layer benchmark
# (pytorch/bench/conv_layers.py: nova_torch against PyTorch's conv2d, which is MIOpen on ROCm), and
# writes everything into one results folder, a short summary table last (summary.md, also printed).
# Nothing in this project has run on an AMD GPU before: send the whole folder back.
#
# Needs: ROCm 6.0 or later (6.3 or later recommended; README.md, "AMD (MI300X)") with hipBLAS
# (rocm-hip-sdk, or hipblas-dev), CMake 3.25 or later, Ninja or Make, and the build dependencies
# (Ubuntu: libeigen3-dev libboost-dev libgmp-dev libmpfr-dev libcli11-dev nlohmann-json3-dev catch2;
# --install-deps installs them with apt-get). The benchmark and nova_torch's tests need a ROCm build of
# PyTorch in the python3 on PATH (or --python).
#
# Usage: tools/amd/mi300x.sh [--out DIR] [--build DIR] [--arch gfx942] [--python PYTHON]
#                            [--batch "1 32"] [--skip-cpu-tests] [--skip-bench] [--install-deps]
#                            [-- CMAKE_ARGUMENTS...]   (passed on to the configure step)
# Exit status: 0 when every step that ran passed, 1 otherwise (the summary says which).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$PWD/mi300x-results-$(date +%Y%m%d-%H%M%S)"
build="$root/build-hip"
arch="" python=$(command -v python3 || true) batch="1 32" cpu_tests=1 bench=1 install_deps=0
cmake_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --skip-cpu-tests) cpu_tests=0; shift ;;
    --skip-bench) bench=0; shift ;;
    --install-deps) install_deps=1; shift ;;
    --) shift; cmake_args=("$@"); break ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "mi300x.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
summary=()  # "step|result|details" rows
failed=0
note() { echo "== $*" | tee -a "$out/steps.log"; }
row() {  # step result details
  summary+=("$1|$2|$3")
  [ "$2" = FAIL ] && failed=1
  note "$1: $2 ${3:+($3)}"
}
finish() {
  {
    echo "# NOVA on AMD: $(date -u +%Y-%m-%dT%H:%MZ), $(hostname)"
    echo
    echo "| step | result | details |"
    echo "|---|---|---|"
    for r in "${summary[@]}"; do
      IFS='|' read -r step result details <<<"$r"
      echo "| $step | $result | $details |"
    done
    echo
    echo "Logs beside this file: system.txt, configure.log, build.log, ctest-gpu.log, ctest-cpu.log, bench.md, bench.json;"
    echo "mi300x_prediction.md: the prediction made without an MI300X, to set against bench.md."
  } >"$out/summary.md"
  echo
  cat "$out/summary.md"
  echo "Results: $out"
  exit $failed
}

# --- ROCm: version and tools ------------------------------------------------------------------
rocm=${ROCM_PATH:-/opt/rocm}
export PATH="$PATH:$rocm/bin"
{
  echo "ROCM_PATH=$rocm"
  echo "--- $rocm/.info/version"; cat "$rocm/.info/version" 2>&1
  echo "--- hipconfig --version"; hipconfig --version 2>&1; echo
  echo "--- hipconfig --full"; hipconfig --full 2>&1
  echo "--- rocm_agent_enumerator"; rocm_agent_enumerator 2>&1
  echo "--- rocminfo"; rocminfo 2>&1
  echo "--- rocm-smi"; rocm-smi 2>&1
  echo "--- cmake --version"; cmake --version 2>&1
  echo "--- uname -a"; uname -a
} >"$out/system.txt" 2>&1
version=$(head -n1 "$rocm/.info/version" 2>/dev/null || hipconfig --version 2>/dev/null || true)
if [[ $version =~ ^([0-9]+)\.([0-9]+) ]]; then
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
  if [ "$major" -lt 6 ]; then
    row "ROCm version" FAIL "$version: NOVA needs ROCm 6.0 or later (hipBLAS 2.0's hipDataType GEMM; gfx942)"
    finish
  elif [ "$major" -eq 6 ] && [ "$minor" -lt 3 ]; then
    row "ROCm version" ok "$version (6.0 or later builds; 6.3 or later is the recommended stack)"
  else
    row "ROCm version" ok "$version"
  fi
else
  row "ROCm version" FAIL "not found: neither $rocm/.info/version nor hipconfig (set ROCM_PATH)"
  finish
fi

# --- the GPU ----------------------------------------------------------------------------------
gpus=$( (rocm_agent_enumerator 2>/dev/null || rocminfo 2>/dev/null | grep -o 'gfx[0-9a-f]*') | grep -v '^gfx000$' | sort -u | tr '\n' ' ')
gpus=${gpus% }
if [ -z "$arch" ]; then
  if [[ " $gpus " == *" gfx942 "* ]]; then
    arch=gfx942
    row "GPU" ok "gfx942 (MI300X/MI300A/MI325X) among: $gpus"
  else
    row "GPU" FAIL "no gfx942 GPU (found: ${gpus:-none}); pass --arch <target> to build and test for what is here"
    finish
  fi
else
  row "GPU" ok "building for $arch as asked (found: ${gpus:-none})"
fi

# --- build --------------------------------------------------------------------------------------
if [ "$install_deps" = 1 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  if $sudo apt-get install -y --no-install-recommends g++ ninja-build pkg-config libeigen3-dev libboost-dev libgmp-dev \
       libmpfr-dev libcli11-dev nlohmann-json3-dev catch2 >"$out/install-deps.log" 2>&1; then
    row "dependencies" ok "apt-get install (install-deps.log)"
  else
    row "dependencies" FAIL "apt-get install failed (install-deps.log)"
  fi
fi
cmake_version=$(cmake --version 2>/dev/null | head -n1 | grep -o '[0-9][0-9.]*' || true)
if [ -z "$cmake_version" ] || ! printf '3.25\n%s\n' "$cmake_version" | sort -V -C; then
  row "configure" FAIL "CMake ${cmake_version:-missing}: 3.25 or later needed (python3 -m pip install 'cmake>=3.25')"
  finish
fi
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
hip_compiler=()
[ -x "$rocm/llvm/bin/clang++" ] && hip_compiler=(-DCMAKE_HIP_COMPILER="$rocm/llvm/bin/clang++")
python_args=()
[ -n "$python" ] && python_args=(-DNOVA_PYTHON="$python")
configure=(cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DNOVA_ENABLE_HIP=ON
           -DCMAKE_HIP_ARCHITECTURES="$arch" -DCMAKE_PREFIX_PATH="$rocm" "${hip_compiler[@]}" "${python_args[@]}"
           "${cmake_args[@]}")
echo "${configure[*]}" >"$out/configure.log"
if "${configure[@]}" >>"$out/configure.log" 2>&1; then
  row "configure" ok "NOVA_ENABLE_HIP=ON, CMAKE_HIP_ARCHITECTURES=$arch, $build"
else
  row "configure" FAIL "configure.log (missing packages: see the header of this script)"
  finish
fi
start=$SECONDS
if cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1; then
  row "build" ok "$((SECONDS - start)) s"
else
  row "build" FAIL "build.log: $(grep -m1 -E 'error' "$out/build.log" | cut -c1-160)"
  finish
fi

# --- tests ------------------------------------------------------------------------------------
ctest_summary() { grep -E 'tests passed|No tests were found' "$1" | tail -n1; }
ctest_skipped() { grep -c -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(Skipped|Not Run)' "$1"; }
if ctest --test-dir "$build" -L gpu --output-on-failure --timeout 1800 >"$out/ctest-gpu.log" 2>&1; then
  skipped=$(ctest_skipped "$out/ctest-gpu.log")
  if [ "$skipped" -eq 0 ]; then
    row "ctest -L gpu" ok "$(ctest_summary "$out/ctest-gpu.log")"
  else  # a GPU test prints SKIP (ctest: skipped) without a GPU; on this machine none may
    row "ctest -L gpu" FAIL "$skipped skipped, the GPU was not seen; $(ctest_summary "$out/ctest-gpu.log"); ctest-gpu.log"
  fi
else
  row "ctest -L gpu" FAIL "$(ctest_summary "$out/ctest-gpu.log"); ctest-gpu.log"
fi
if [ "$cpu_tests" = 1 ]; then
  if ctest --test-dir "$build" -LE gpu -j "$(nproc)" --output-on-failure --timeout 1800 >"$out/ctest-cpu.log" 2>&1; then
    row "ctest -LE gpu (CPU tests)" ok "$(ctest_summary "$out/ctest-cpu.log")"
  else
    row "ctest -LE gpu (CPU tests)" FAIL "$(ctest_summary "$out/ctest-cpu.log"); ctest-cpu.log"
  fi
fi

# --- benchmark ------------------------------------------------------------------------------------
if [ "$bench" = 1 ]; then
  read -r -a batches <<<"$batch"
  if [ -z "$python" ] || ! "$python" -c 'import torch, sys; sys.exit(0 if torch.version.hip and torch.cuda.is_available() else 1)' \
       >>"$out/steps.log" 2>&1; then
    row "benchmark" SKIPPED "no ROCm build of PyTorch with a visible GPU in ${python:-python3} (--python)"
  elif PYTHONPATH="$build/pytorch${PYTHONPATH:+:$PYTHONPATH}" "$python" "$root/pytorch/bench/conv_layers.py" \
         --batch "${batches[@]}" --json "$out/bench.json" >"$out/bench.md" 2>"$out/bench.err"; then
    row "benchmark" ok "bench.md: $(grep 'geometric mean' "$out/bench.md" | sed 's/ over 9 layers//' | paste -sd ';' -)"
    # Beside it, what was predicted for this GPU before it ran here (the fused MFMA kernel alone).
    cp "$root"/docs/results/mi300x_prediction.md "$root"/docs/results/mi300x_prediction.csv "$out/" 2>/dev/null || true
  else
    row "benchmark" FAIL "bench.err: $(tail -n1 "$out/bench.err" | cut -c1-160)"
  fi
fi
finish
