#!/usr/bin/env bash
# A test of the MFMA gate in tools/check_kernel_compile.sh (a ctest test; exit 77 = skipped): compiles
# a fixture of data/ (mfma_gate_*.hip) and checks the gate's verdict on it.
#   EXPECT = pass    the check passes (exit 0) and the gate checked at least one kernel
#   EXPECT = REGEX   the check fails (exit 1) and the gate's message for the fixture's fused_mfma kernel
#                    matches REGEX (extended), so the gate failed it for that reason and not another
# Usage: tests/codegen/check_mfma_gate.sh MODE COMPILER FIXTURE EXPECT
set -uo pipefail
mode=$1 compiler=$2 fixture=$3 expect=$4
kernel=nova_gate_fused_mfma_nhwc_f16_v0  # the gated kernel of every fixture
output=$("$(dirname "$0")/../../tools/check_kernel_compile.sh" "$mode" "$compiler" "$fixture" 2>&1)
rc=$?
printf '%s\n' "$output"
[ $rc -eq 77 ] && exit 77
if [ "$expect" = pass ]; then
  if [ $rc -ne 0 ]; then echo "FAIL: the gate failed $(basename "$fixture") (exit $rc), which must pass"; exit 1; fi
  if ! grep -Eq "^MFMA gate: [1-9][0-9]* kernels checked" <<<"$output"; then
    echo "FAIL: the check passed but the gate checked no kernel"; exit 1
  fi
else
  if [ $rc -ne 1 ]; then echo "FAIL: exit $rc, not the gate's 1, on $(basename "$fixture")"; exit 1; fi
  if ! grep -Eq "^MFMA gate: $kernel: .*($expect)" <<<"$output"; then
    echo "FAIL: no gate message for $kernel that matches '$expect'"; exit 1
  fi
fi
echo "OK: the gate's verdict on $(basename "$fixture") ($mode): $expect"
