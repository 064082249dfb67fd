#!/usr/bin/env bash
# A test of a gate in tools/check_kernel_compile.sh (a ctest test; exit 77 = skipped): compiles a fixture
# of data/ and checks the gate's verdict on it. The gate is the mode's: on the AMD modes the MFMA gate
# (fixtures mfma_gate_*.hip, whose gated kernel is nova_gate_fused_mfma_nhwc_f16_v0), on nvcc-sm90 the
# spill gate (spill_gate_*.hip, kernel nova_gate_kernel) or the register gate (register_gate_*.hip, kernel
# nova_gate_filter_f16, against a table of this nvcc that records 255 registers for it).
#   EXPECT = pass    the check passes (exit 0) and the MFMA gate checked at least one kernel
#   EXPECT = REGEX   the check fails (exit 1) and the gate's message for the fixture's kernel matches
#                    REGEX (extended), so the gate failed it for that reason and not another
# Usage: tests/codegen/check_gate.sh MODE COMPILER FIXTURE EXPECT
set -uo pipefail
mode=$1 compiler=$2 fixture=$3 expect=$4
gate="MFMA gate" kernel=nova_gate_fused_mfma_nhwc_f16_v0
[ "$mode" = nvcc-sm90 ] && gate="spill gate" kernel=nova_gate_kernel
if [[ $(basename "$fixture") == register_gate_* ]]; then
  gate="register gate" kernel="gate [|] filter_f16"
  table=$(mktemp)
  trap 'rm -f "$table"' EXIT
  { [ -n "$compiler" ] && command -v "$compiler" >/dev/null && echo "ptxas of: $("$compiler" --version | tail -1)"
    echo "| gate | filter_f16 | 255 | 0 | 0 | 0 | 0 |"; } >"$table"
  export NOVA_KERNEL_RESOURCES=$table
fi
output=$("$(dirname "$0")/../../tools/check_kernel_compile.sh" "$mode" "$compiler" "$fixture" 2>&1)
rc=$?
printf '%s\n' "$output"
[ $rc -eq 77 ] && exit 77
if [ "$expect" = pass ]; then
  if [ $rc -ne 0 ]; then echo "FAIL: the gate failed $(basename "$fixture") (exit $rc), which must pass"; exit 1; fi
  if [ "$gate" = "MFMA gate" ] && ! grep -Eq "^MFMA gate: [1-9][0-9]* kernels checked" <<<"$output"; then
    echo "FAIL: the check passed but the gate checked no kernel"; exit 1
  fi
else
  if [ $rc -ne 1 ]; then echo "FAIL: exit $rc, not the gate's 1, on $(basename "$fixture")"; exit 1; fi
  if ! grep -Eq "^$gate: $kernel: .*($expect)" <<<"$output"; then
    echo "FAIL: no gate message for $kernel that matches '$expect'"; exit 1
  fi
fi
echo "OK: the gate's verdict on $(basename "$fixture") ($mode): $expect"
