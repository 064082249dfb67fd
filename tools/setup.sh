#!/usr/bin/env bash
# Installs every build and test dependency from Debian's packages. Idempotent: when everything is
# present it only checks (well under a second) and installs nothing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libboost-dev libgmp-dev libmpfr-dev libeigen3-dev libcli11-dev nlohmann-json3-dev catch2
  clang-19 rocm-device-libs libamdhip64-dev  # AMD compile checks (gfx942, gfx90a, gfx1100; HIP headers,
                                             # ROCm's device libraries) and tools/amd_kernel_resources.sh
  libclang-rt-19-dev                # the sanitizer runtimes and libFuzzer for clang-19 (tools/sanitize.sh, tools/fuzz.sh)
  gnuplot-nox                       # plots of tools/errlab/reproduce_accuracy.sh
  python3-torch python3-torchvision python3-pytest  # nova_torch and its tests (Debian's /usr/bin/python3)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
