#include "exactvmaf/io.hpp"
#include "io/warnings.hpp"

#include <cstdio>
#include <mutex>
#include <utility>

namespace exactvmaf::io {

namespace {
std::mutex g_mutex;
WarningHandler g_handler;  // empty: the default stderr writer
}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  std::lock_guard lock(g_mutex);
  return std::exchange(g_handler, std::move(handler));
}

void warn(const std::string& message) {
  std::lock_guard lock(g_mutex);
  if (g_handler) {
    g_handler(message);
  } else {
    std::fprintf(stderr, "warning: %s\n", message.c_str());
  }
}

}  // namespace exactvmaf::io

namespace exactvmaf {
InputWarningHandler set_input_warning_handler(InputWarningHandler handler) {
  return io::set_warning_handler(std::move(handler));
}
}  // namespace exactvmaf
