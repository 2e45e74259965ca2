#include "av/av_library.hpp"

#include <dlfcn.h>

#include <string>

#include "exactvmaf/error.hpp"

namespace exactvmaf::av {
namespace {

#if EXACTVMAF_AV_DLOPEN
#define EXACTVMAF_AV_STR2(x) #x
#define EXACTVMAF_AV_STR(x) EXACTVMAF_AV_STR2(x)
// Dependencies first: each library's own NEEDED entries are then already loaded.
constexpr const char* kAvutil = "libavutil.so." EXACTVMAF_AV_STR(LIBAVUTIL_VERSION_MAJOR);
constexpr const char* kSwscale = "libswscale.so." EXACTVMAF_AV_STR(LIBSWSCALE_VERSION_MAJOR);
constexpr const char* kAvcodec = "libavcodec.so." EXACTVMAF_AV_STR(LIBAVCODEC_VERSION_MAJOR);
constexpr const char* kAvformat = "libavformat.so." EXACTVMAF_AV_STR(LIBAVFORMAT_VERSION_MAJOR);
#endif

struct Loaded {
  Library functions;
  std::string error;  // empty when every function was found
};

#if EXACTVMAF_AV_DLOPEN
Loaded load() {
  Loaded l;
  struct Handle {
    const char* soname;
    void* handle;
  };
  Handle avutil{kAvutil, nullptr}, swscale{kSwscale, nullptr}, avcodec{kAvcodec, nullptr},
      avformat{kAvformat, nullptr};
  for (Handle* h : {&avutil, &swscale, &avcodec, &avformat}) {
    // Never closed: FFmpeg's code and state live as long as the process.
    h->handle = dlopen(h->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h->handle) {
      const char* why = dlerror();
      l.error = std::string("compressed input needs FFmpeg's ") + h->soname + ", which could not be loaded (" +
                (why ? why : "unknown reason") + ")";
      return l;
    }
  }
#define EXACTVMAF_AV_LOOKUP(library, name)                                                        \
  if (l.error.empty()) {                                                                          \
    l.functions.name = reinterpret_cast<decltype(&::name)>(dlsym(library.handle, #name));         \
    if (!l.functions.name) l.error = std::string(library.soname) + " has no function " #name;    \
  }
  EXACTVMAF_AV_FUNCTIONS(EXACTVMAF_AV_LOOKUP)
#undef EXACTVMAF_AV_LOOKUP
  return l;
}
#else
// A static FFmpeg linked in: the functions themselves.
Loaded load() {
  Loaded l;
#define EXACTVMAF_AV_ADDRESS(library, name) l.functions.name = &::name;
  EXACTVMAF_AV_FUNCTIONS(EXACTVMAF_AV_ADDRESS)
#undef EXACTVMAF_AV_ADDRESS
  return l;
}
#endif

}  // namespace

const Library& lib() {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) throw Error(loaded.error);
  return loaded.functions;
}

void load_library_for(const std::string& path) {
  try {
    lib();
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace exactvmaf::av
