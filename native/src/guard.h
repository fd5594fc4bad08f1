// How every export of both addons (and their module init) is entered from JS.
//
// Why not node-addon-api's Napi::Function::New: with NAPI_CPP_EXCEPTIONS its
// callback wrapper catches a Napi::Error and rethrows it into JS through
// Error::ThrowAsJavaScriptException(), which *throws a new C++ exception*
// when napi_throw fails. napi_throw (and napi_set_named_property, so any
// result object's Set) fails as soon as the environment can no longer run JS:
// worker.terminate() or process exit landing while a call is running on that
// worker. The second exception leaves the wrapper's catch handler, unwinds
// into V8's frames and ends in std::terminate ("terminate called after
// throwing an instance of 'Napi::Error'"). That is how a corrupt JPEG decoded
// while the loader closed its workers (after reporting another corrupt
// sample) aborted the whole process, and how cancelling a build (its encode
// workers terminated mid-call) killed `beton serve`.
//
// Guarded<Fn> is a plain Node-API callback that runs Fn under a catch-all and
// reports what it caught with the C API only, ignoring a throw the terminating
// environment refuses (nobody is left to receive it). No C++ exception can
// leave it: Napi::Error, std::bad_alloc and anything else become JS errors.
#pragma once

#include <napi.h>

#include <exception>
#include <new>

namespace beton {

// Throws `error` into JS unless an exception is already pending or the
// environment is terminating (then there is nothing to report to). Never
// throws a C++ exception.
inline void ThrowIntoJs(napi_env env, napi_value error) noexcept {
  if (error == nullptr) return;
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
  (void)napi_throw(env, error);
}

// The C-API counterpart for failures that carry no JS value. `code` becomes
// the error's code property (NativeError codes in core/native/native-error.ts).
inline void ThrowMessageIntoJs(napi_env env, const char* code, const char* message) noexcept {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
  (void)napi_throw_error(env, code, message);
}

template <Napi::Value (*Fn)(const Napi::CallbackInfo&)>
napi_value Guarded(napi_env env, napi_callback_info cbinfo) noexcept {
  try {
    Napi::CallbackInfo info(env, cbinfo);
    return Fn(info);
  } catch (const Napi::Error& error) {
    napi_value value = nullptr;
    // Error::Value() may itself throw; inside a handler that would escape.
    try {
      value = error.Value();
    } catch (...) {
      value = nullptr;
    }
    if (value != nullptr) {
      ThrowIntoJs(env, value);
    } else {
      ThrowMessageIntoJs(env, "NATIVE_INTERNAL", "native call failed");
    }
  } catch (const std::bad_alloc&) {
    ThrowMessageIntoJs(env, "NATIVE_NO_MEMORY", "out of memory in a native call");
  } catch (const std::exception& error) {
    ThrowMessageIntoJs(env, "NATIVE_INTERNAL", error.what());
  } catch (...) {
    ThrowMessageIntoJs(env, "NATIVE_INTERNAL", "unknown exception in a native call");
  }
  return nullptr;
}

// exports[name] = Guarded<Fn>. Module init runs under GuardedInit below, so a
// failure here is caught there.
template <Napi::Value (*Fn)(const Napi::CallbackInfo&)>
void ExportFunction(Napi::Env env, Napi::Object exports, const char* name) {
  napi_value fn = nullptr;
  napi_status status = napi_create_function(env, name, NAPI_AUTO_LENGTH, Guarded<Fn>, nullptr, &fn);
  NAPI_THROW_IF_FAILED_VOID(env, status);
  exports.Set(name, Napi::Value(env, fn));
}

// Module init under the same catch-all: a worker terminated while it loads
// the addon (a Loader whose open failed, stopping workers still starting)
// makes exports.Set fail; that must not abort the process either.
template <Napi::Object (*Init)(Napi::Env, Napi::Object)>
napi_value GuardedInit(napi_env env, napi_value exports) noexcept {
  try {
    return Init(Napi::Env(env), Napi::Object(env, exports));
  } catch (const Napi::Error& error) {
    napi_value value = nullptr;
    try {
      value = error.Value();
    } catch (...) {
      value = nullptr;
    }
    if (value != nullptr) {
      ThrowIntoJs(env, value);
    } else {
      ThrowMessageIntoJs(env, "NATIVE_LOAD", "native module init failed");
    }
  } catch (...) {
    ThrowMessageIntoJs(env, "NATIVE_LOAD", "native module init failed");
  }
  return nullptr;
}

}  // namespace beton

// NODE_API_MODULE without node-addon-api's RegisterModule wrapper (which has
// the rethrow problem described above). `modname` is the target name.
#define BETON_GUARDED_MODULE(modname, init)                                   \
  static napi_value beton_init_##modname(napi_env env, napi_value exports) {  \
    return beton::GuardedInit<init>(env, exports);                            \
  }                                                                           \
  NAPI_MODULE(modname, beton_init_##modname)
