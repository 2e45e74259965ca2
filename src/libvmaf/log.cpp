// The C API's log: libvmaf's levels, one line per message on stderr.
#include <atomic>
#include <cstdio>
#include <string>

#include "libvmaf/api.hpp"

namespace exactvmaf::capi {

namespace {
std::atomic<int> g_level{VMAF_LOG_LEVEL_INFO};  // libvmaf's default
}

void set_log_level(int level) {
  int l = level;
  if (l < VMAF_LOG_LEVEL_NONE) l = VMAF_LOG_LEVEL_NONE;
  if (l > VMAF_LOG_LEVEL_DEBUG) l = VMAF_LOG_LEVEL_DEBUG;
  g_level.store(l, std::memory_order_relaxed);
}

void log_line(VmafLogLevel level, std::string_view function, std::string_view message) {
  if (level <= VMAF_LOG_LEVEL_NONE || level > g_level.load(std::memory_order_relaxed)) return;
  const char* kind = level == VMAF_LOG_LEVEL_ERROR ? "error" : level == VMAF_LOG_LEVEL_WARNING ? "warning" : "info";
  // One fprintf per line, so that lines from several threads do not mix.
  const std::string line = "exactvmaf: " + std::string(kind) + ": " + std::string(function) + ": " +
                           std::string(message) + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace exactvmaf::capi
