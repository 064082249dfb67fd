// What the tests take of each dtype: its name, the unit roundoff u of the type the runtime stores
// V and U in (docs/design.md §6: the precision model predicts 0.7 u amp2D) and the default error
// budget (runtime.h). Written out here rather than read from the runtime, so that the tests check it.
#pragma once

#include "nova/runtime.h"

namespace nova::test {

struct DtypeCase {
  nova_dtype_t dtype;
  const char* name;
  double u, budget;
};

inline constexpr DtypeCase kDtypes[] = {{NOVA_DTYPE_FP16, "fp16", 0x1p-11, 1e-2},
                                        {NOVA_DTYPE_BF16, "bf16", 0x1p-8, 3e-2},
                                        {NOVA_DTYPE_FP32, "fp32", 0x1p-24, 1e-5}};

inline const DtypeCase& dtype_case(nova_dtype_t dtype) {
  for (const DtypeCase& d : kDtypes)
    if (d.dtype == dtype) return d;
  return kDtypes[2];  // only the three above exist
}

}  // namespace nova::test
