// libvmaf's output formats (XML, JSON, CSV) and number formats.
#pragma once
#include <cstdio>
#include <string>

#include "exactvmaf/run.hpp"

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

enum class OutputFormat { xml, json, csv, sub };  // sub: libvmaf's subtitle format

// How numbers are printed. legacy: libvmaf's rule byte for byte (%.6f, or
// %.16f when the fractional part is non-zero with more than six leading
// zeros; non-finite as libvmaf prints it per format). max: %.17g (round-trip).
// fixed: %.Nf with N digits.
struct NumberFormat {
  enum class Kind { legacy, max, fixed } kind = Kind::legacy;
  int digits = 6;
  // Parses "legacy", "max" or a digit count (0..17); throws Error otherwise.
  static NumberFormat parse(const std::string& s);
};

// Formats one value as a number token (JSON: "null" for non-finite).
std::string format_number(double v, const NumberFormat& nf, OutputFormat where);

struct OutputMeta {
  std::string version;   // our version string
  unsigned subsample = 1;
  unsigned width = 0, height = 0;
  // How the inputs were scaled before scoring, with the scaler's version
  // (docs/input.md); empty when nothing was scaled. JSON writes it as
  // "scaling" before "numerics", XML as an attribute of <VMAF>.
  std::string scaling;
};

// Writes the whole report. Returns false on a write error.
bool write_report(std::FILE* f, OutputFormat fmt, const RunResult& r, const OutputMeta& meta,
                  const NumberFormat& nf);
std::string report_to_string(OutputFormat fmt, const RunResult& r, const OutputMeta& meta,
                             const NumberFormat& nf);

}  // namespace exactvmaf

#pragma GCC visibility pop
