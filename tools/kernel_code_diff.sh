#!/usr/bin/env bash
# Which kernels of a generated kernel file compile to other sm_90a machine code than at revision REV:
# the file is compiled (nvcc -cubin, the flags of tools/kernel_resources.sh) against the kernel
# headers of the working tree and against those of REV, and each kernel's .text section of the two
# cubins is compared byte for byte. A header change that must leave some kernels' code alone (a
# shared helper reorganised) is checked this way; the speed of unchanged code needs no new run.
# Needs nvcc, no GPU. Prints "same" or "differs" and the kernel, one line each.
# Usage: tools/kernel_code_diff.sh REV KERNEL_FILE.hip...   (e.g. HEAD generated/f4x3_standard_kernels.hip)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 's/^# Usage: //p' "$0" >&2; exit 2; }
rev=$1
shift
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/before"
git archive "$rev" runtime/kernels/include | tar x -C "$work/before"
for file in "$@"; do
  stem=$(basename "$file" .hip)
  for side in before after; do
    include=runtime/kernels/include
    [ $side = before ] && include=$work/before/runtime/kernels/include
    "$nvcc" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -x cu -I"$include" -Igenerated -cubin "$file" \
      -o "$work/$stem.$side.cubin" 2>/dev/null
  done
  python3 - "$work/$stem.before.cubin" "$work/$stem.after.cubin" <<'PY'
import hashlib, struct, sys

def kernels(path):  # .text.<kernel> section -> digest of its bytes (ELF64, little endian)
    d = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    size, count, names = struct.unpack_from("<HHH", d, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * size) for i in range(count)]
    strings = headers[names][4]
    out = {}
    for h in headers:
        name = d[strings + h[0]:d.index(b"\0", strings + h[0])].decode()
        if name.startswith(".text."):
            out[name[6:]] = hashlib.sha256(d[h[4]:h[4] + h[5]]).hexdigest()
    return out

before, after = kernels(sys.argv[1]), kernels(sys.argv[2])
for name in sorted(before.keys() | after.keys()):
    print("same   " if before.get(name) == after.get(name) else "differs", name)
PY
done
