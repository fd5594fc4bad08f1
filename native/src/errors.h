// Errors thrown back to JavaScript.
//
// Every failure carries a stable `code` property so the TypeScript layer can
// map it to its NativeError class without parsing messages.
#pragma once

#include <napi.h>

#include <string>

namespace beton {

// Codes visible to JS; keep in sync with NativeErrorCode in core/native/native-error.ts.
inline constexpr const char* kErrIo = "NATIVE_IO";            // open/fstat/mmap failed
inline constexpr const char* kErrJpeg = "NATIVE_JPEG";        // libjpeg rejected the data
inline constexpr const char* kErrJpegWarning = "NATIVE_JPEG_WARNING";  // strict mode
inline constexpr const char* kErrBufferSize = "NATIVE_BUFFER_SIZE";    // dst too small etc.
inline constexpr const char* kErrLoad = "NATIVE_LOAD";  // libturbojpeg missing or not loaded

inline Napi::Error MakeError(Napi::Env env, const char* code,
                             const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  return error;
}

}  // namespace beton
