// Reader warnings: conditions upstream libvmaf reports on stderr but carries
// on from (a partial last raw frame, unknown interlacing, raw options given
// for a y4m file). They go to one process-wide handler so the CLI decides how
// to show them (or a test can collect them).
#pragma once
#include <functional>
#include <string>

namespace exactvmaf::io {

using WarningHandler = std::function<void(const std::string& message)>;

// Installs `handler` (nullptr restores the default, which writes
// "warning: <message>" to stderr) and returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);

// Sends one single-line message naming the input to the current handler.
void warn(const std::string& message);

}  // namespace exactvmaf::io
