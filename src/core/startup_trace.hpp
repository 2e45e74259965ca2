// EXACTVMAF_STARTUP_TRACE=1: one stderr line per start-up phase ("startup:
// 412.3 ms cuda: driver and context"), milliseconds since the process began,
// so the time to the first scored frame can be split into its parts
// (issue 18, docs/benchmarks.md). Off, a call tests one flag.
#pragma once
#include <string_view>

namespace exactvmaf::pipeline {

void startup_mark(std::string_view phase);

}  // namespace exactvmaf::pipeline
