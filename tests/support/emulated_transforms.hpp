// The transforms the kernel emulation tests run: every generated one, or the representative ones
// (one of each kind) where the build asks for them (NOVA_EMULATE_REPRESENTATIVE, the sanitizer builds;
// tests/codegen/CMakeLists.txt).
#pragma once

#include "all_transforms.hpp"

namespace nova::test {

#ifdef NOVA_EMULATED_TRANSFORMS
using EmulatedTransforms = nova::generated::TransformList<NOVA_EMULATED_TRANSFORMS>;
#else
using EmulatedTransforms = nova::generated::AllTransforms;
#endif

}  // namespace nova::test
