// Argument extraction shared by every export.
//
// The TypeScript wrappers validate arguments first, but the raw addon is also
// reachable directly, so every export re-checks what it relies on for memory
// safety and throws a JS TypeError/RangeError instead of touching bad memory.
#pragma once

#include <napi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

namespace beton {

// A borrowed view of a Uint8Array's bytes. Valid only while the JS value is
// alive, i.e. for the duration of the synchronous call that extracted it.
struct ByteView {
  uint8_t* data;
  size_t length;
};

inline ByteView RequireBytes(const Napi::CallbackInfo& info, size_t index,
                             const char* name) {
  Napi::Env env = info.Env();
  if (index >= info.Length() || !info[index].IsTypedArray()) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a Uint8Array");
  }
  Napi::TypedArray typed = info[index].As<Napi::TypedArray>();
  if (typed.TypedArrayType() != napi_uint8_array) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a Uint8Array");
  }
  Napi::Uint8Array bytes = typed.As<Napi::Uint8Array>();
  // A detached buffer reports length 0 and a null pointer; treat it as empty
  // rather than dereferencing it.
  return ByteView{bytes.Data(), bytes.ByteLength()};
}

// Integers arrive as JS doubles; reject NaN, fractions and out-of-range values
// instead of letting a static_cast silently wrap them.
inline int64_t RequireInteger(const Napi::CallbackInfo& info, size_t index,
                              const char* name, int64_t min, int64_t max) {
  Napi::Env env = info.Env();
  if (index >= info.Length() || !info[index].IsNumber()) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a number");
  }
  double value = info[index].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(value) || std::trunc(value) != value ||
      value < static_cast<double>(min) || value > static_cast<double>(max)) {
    throw Napi::RangeError::New(
        env, std::string(name) + " must be an integer in [" +
                 std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return static_cast<int64_t>(value);
}

inline bool OptionalBoolean(const Napi::CallbackInfo& info, size_t index,
                            bool fallback) {
  if (index >= info.Length() || info[index].IsUndefined()) return fallback;
  if (!info[index].IsBoolean()) {
    throw Napi::TypeError::New(info.Env(), "expected a boolean argument");
  }
  return info[index].As<Napi::Boolean>().Value();
}

inline std::string RequireString(const Napi::CallbackInfo& info, size_t index,
                                 const char* name) {
  if (index >= info.Length() || !info[index].IsString()) {
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a string");
  }
  return info[index].As<Napi::String>().Utf8Value();
}

}  // namespace beton
