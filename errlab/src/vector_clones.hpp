// Hot loops are compiled twice, for AVX2 and for the x86-64 baseline, and the dynamic loader picks
// the version the CPU supports (function multiversioning). The numbers are the same either way:
// the loops vectorise over independent tile positions, reassociate nothing and, with
// -ffp-contract=off, fuse nothing; only the vector width differs. GCC only: clang does not clone
// function templates, and compiles the loops once, for the baseline.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define NOVA_ERRLAB_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NOVA_ERRLAB_VECTOR_CLONES
#endif
