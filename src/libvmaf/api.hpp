// Internals shared by the libvmaf C API's files: errors as negative errno
// values with one logged line, the FP-environment guard around every entry
// point, and registries that tell live objects from closed ones.
#pragma once
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>

#include "exactvmaf/error.hpp"
#include "numeric/fpenv.hpp"

// The C declarations get default visibility: the library exports them (and
// only them: libvmaf.map).
#pragma GCC visibility push(default)
#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#pragma GCC visibility pop

namespace exactvmaf::capi {

// A failure with the errno value the function returns (negated).
class ApiError : public std::runtime_error {
 public:
  ApiError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

[[noreturn]] inline void fail(const std::string& message, int code = EINVAL) { throw ApiError(code, message); }

// The value a C caller passed for an enum, which may be any int: read from
// its bytes (loading an out-of-range value as the C++ enum is undefined).
template <class E>
int enum_value(const E& e) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// libvmaf's process-wide log level (vmaf_init sets it; clamped to NONE..DEBUG).
void set_log_level(int level);
// "exactvmaf: error: FUNCTION: MESSAGE" on stderr when the level allows it.
void log_line(VmafLogLevel level, std::string_view function, std::string_view message);

// Runs `body` (returning 0 or a negative errno) under the FP guard; an
// exception becomes one log line and its negative errno value.
template <class Body>
int guarded(const char* function, Body&& body) noexcept {
  FpEnvGuard env;
  try {
    return body();
  } catch (const ApiError& e) {
    log_line(VMAF_LOG_LEVEL_ERROR, function, e.what());
    return -e.code();
  } catch (const std::bad_alloc&) {
    log_line(VMAF_LOG_LEVEL_ERROR, function, "out of memory");
    return -ENOMEM;
  } catch (const std::exception& e) {
    log_line(VMAF_LOG_LEVEL_ERROR, function, e.what());
    return -EINVAL;
  } catch (...) {
    log_line(VMAF_LOG_LEVEL_ERROR, function, "unexpected internal error");
    return -EINVAL;
  }
}

// The objects of one kind handed out and not yet destroyed, so that a
// destroyed or foreign pointer gets an error instead of a crash.
template <class T>
class Registry {
 public:
  void add(const T* p) {
    std::lock_guard lock(mutex_);
    live_.insert(p);
  }
  // False when `p` was not live.
  bool remove(const T* p) {
    std::lock_guard lock(mutex_);
    return live_.erase(p) == 1;
  }
  bool contains(const T* p) const {
    std::lock_guard lock(mutex_);
    return live_.count(p) == 1;
  }
  bool empty() const {
    std::lock_guard lock(mutex_);
    return live_.empty();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<const T*> live_;
};

// Throws ApiError naming `what` unless `p` is live in `registry`.
template <class T>
T& checked(T* p, const Registry<T>& registry, const char* what) {
  if (p == nullptr) fail(std::string(what) + " is NULL");
  if (!registry.contains(p)) fail(std::string(what) + " is not a live object (already closed or destroyed?)");
  return *p;
}

// The argument must not be NULL.
template <class T>
T& not_null(T* p, const char* what) {
  if (p == nullptr) fail(std::string(what) + " is NULL");
  return *p;
}

}  // namespace exactvmaf::capi
