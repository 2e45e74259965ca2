#include "core/startup_trace.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace exactvmaf::pipeline {

namespace {

double now_ms(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// The process's start on CLOCK_BOOTTIME: field 22 of /proc/self/stat, in
// clock ticks since boot (10 ms steps). Without it, this library's load.
double process_start_ms() {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');  // the command name may hold spaces
  if (close != std::string::npos) {
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    for (int k = 3; k <= 22 && fields >> field; ++k)
      if (k == 22) return std::stod(field) * 1e3 / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return now_ms(CLOCK_BOOTTIME);
}

struct Trace {
  bool on = false;
  double start_ms = 0;  // CLOCK_BOOTTIME
  Trace() {
    const char* e = std::getenv("EXACTVMAF_STARTUP_TRACE");
    on = e && *e && std::string_view(e) != "0";
    if (on) start_ms = process_start_ms();
  }
};

const Trace& trace() {
  static const Trace t;
  return t;
}

}  // namespace

void startup_mark(std::string_view phase) {
  const Trace& t = trace();
  if (!t.on) return;
  std::fprintf(stderr, "startup: %8.1f ms %.*s\n", now_ms(CLOCK_BOOTTIME) - t.start_ms, static_cast<int>(phase.size()),
               phase.data());
}

}  // namespace exactvmaf::pipeline
