// numpy's Generator.shuffle of a uint32 range with its PCG64 (XSL-RR 128/64) bit
// generator, bit-exact. The TypeScript generator (core/loader/orders/pcg64.ts) is the
// reference and hands its state over: 128-bit arithmetic is one instruction here and 36
// double multiplies there, and a million-sample epoch order is on the loader's critical path.

#include <napi.h>

#include <cstdint>

#include "beton_native.h"

namespace beton {
namespace {

using u128 = unsigned __int128;

constexpr u128 kMultiplier = (static_cast<u128>(0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;

struct Pcg64 {
  u128 state;
  u128 inc;
  bool has_stash;
  uint32_t stash;

  uint64_t Next64() {
    state = state * kMultiplier + inc;
    const uint64_t x = static_cast<uint64_t>(state >> 64) ^ static_cast<uint64_t>(state);
    const unsigned rot = static_cast<unsigned>(state >> 122);
    return (x >> rot) | (x << ((64 - rot) & 63));
  }

  // numpy buffers the upper half of a 64-bit draw for the next 32-bit request.
  uint32_t Next32() {
    if (has_stash) {
      has_stash = false;
      return stash;
    }
    const uint64_t v = Next64();
    stash = static_cast<uint32_t>(v >> 32);
    has_stash = true;
    return static_cast<uint32_t>(v);
  }

  // numpy's random_interval for max <= 0xFFFFFFFF: masked rejection on 32-bit draws.
  uint32_t Interval(uint32_t max) {
    if (max == 0) return 0;
    const uint32_t mask = 0xFFFFFFFFu >> __builtin_clz(max);
    uint32_t v;
    while ((v = (Next32() & mask)) > max) {
    }
    return v;
  }
};

u128 FromLimbs(const uint16_t* limbs) {
  u128 v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 16) | limbs[i];
  return v;
}

void ToLimbs(u128 v, uint16_t* limbs) {
  for (int i = 0; i < 8; i++) {
    limbs[i] = static_cast<uint16_t>(v & 0xFFFF);
    v >>= 16;
  }
}

}  // namespace

// pcg64ShuffleU32(values: Uint32Array, start, end, limbs: Uint16Array(16) = state then
// increment, least significant first, stash: Uint32Array(2) = [hasStash, stash]).
// Shuffles values[start, end) in place; writes the advanced state back into limbs/stash.
Napi::Value Pcg64ShuffleU32(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 5 || !info[0].IsTypedArray() || !info[1].IsNumber() || !info[2].IsNumber() ||
      !info[3].IsTypedArray() || !info[4].IsTypedArray()) {
    throw Napi::TypeError::New(env, "pcg64ShuffleU32(values, start, end, limbs, stash)");
  }
  auto values = info[0].As<Napi::TypedArray>();
  auto limbs = info[3].As<Napi::TypedArray>();
  auto stash = info[4].As<Napi::TypedArray>();
  if (values.TypedArrayType() != napi_uint32_array || limbs.TypedArrayType() != napi_uint16_array ||
      limbs.ElementLength() != 16 || stash.TypedArrayType() != napi_uint32_array || stash.ElementLength() != 2) {
    throw Napi::TypeError::New(env, "pcg64ShuffleU32: expected Uint32Array, Uint16Array(16), Uint32Array(2)");
  }
  const double start = info[1].As<Napi::Number>().DoubleValue();
  const double end = info[2].As<Napi::Number>().DoubleValue();
  if (!(start >= 0 && start <= end && end <= static_cast<double>(values.ElementLength()))) {
    throw Napi::RangeError::New(env, "pcg64ShuffleU32: range outside the array");
  }
  uint32_t* a = values.As<Napi::Uint32Array>().Data();
  uint16_t* l = limbs.As<Napi::Uint16Array>().Data();
  uint32_t* st = stash.As<Napi::Uint32Array>().Data();

  Pcg64 rng{FromLimbs(l), FromLimbs(l + 8), st[0] != 0, st[1]};
  const size_t s = static_cast<size_t>(start);
  const size_t n = static_cast<size_t>(end) - s;
  // numpy: for i = n-1 .. 1, j = random_interval(i), swap. n <= 2^32 (a Uint32Array).
  for (size_t i = n > 0 ? n - 1 : 0; i > 0; i--) {
    const size_t j = rng.Interval(static_cast<uint32_t>(i));
    const uint32_t t = a[s + i];
    a[s + i] = a[s + j];
    a[s + j] = t;
  }
  ToLimbs(rng.state, l);
  st[0] = rng.has_stash ? 1 : 0;
  st[1] = rng.stash;
  return env.Undefined();
}

}  // namespace beton
