// BETON_HOT marks the pixel loops worth compiling twice: for AVX2 and for the
// baseline x86-64 (SSE2), with the variant picked once at load time (GCC's
// target_clones, an ifunc). Prebuilt addons must run on any x86-64 CPU, so
// -mavx2 for the whole build is not an option; measured on the loader's
// 160x160 resizes, the AVX2 clones are 30-40% faster. Only the instruction
// set changes: no FMA contraction (-ffp-contract=off) and no reassociation,
// so results are bit-identical between the variants.
#pragma once

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define BETON_HOT __attribute__((target_clones("avx2", "default")))
#else
#define BETON_HOT
#endif
