// docs/design.md §2: feature arithmetic uses R's functions only. No host
// libm, no std:: math and no CUDA math library may appear in src/features;
// the rest of the library (numeric, model, core, io, output, backends) calls
// no elementary function that is not IEEE-exact. (The same rule is checked on
// the built binaries, tests/core/libm_symbols_test.sh, and at compile time,
// numeric/no_libm.hpp.)
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

// Every line of code (comments dropped) of the C++ and CUDA files under
// src/<dir> for each dir, matched against `banned`; returns the files read.
std::size_t expect_no_match(const std::vector<std::string>& dirs, const std::regex& banned) {
  std::size_t files = 0;
  for (const auto& dir : dirs)
    for (const auto& e : std::filesystem::recursive_directory_iterator(source_dir() / "src" / dir)) {
      const auto ext = e.path().extension().string();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".cu" && ext != ".cuh") continue;
      ++files;
      std::ifstream in(e.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const auto comment = line.find("//");
        const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
        std::smatch m;
        EXPECT_FALSE(std::regex_search(code, m, banned))
            << e.path().string() << ":" << n << ": '" << m.str() << "' (use exactvmaf::rmath)";
      }
    }
  return files;
}

TEST(FeatureSources, CallNoLibmFunction) {
  const std::regex banned(
      R"((#\s*include\s*[<"](cmath|math\.h|cuda/std/cmath)[>"])|)"
      R"((\bstd::(sqrt|cbrt|pow|exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|hypot|fma|ceil|floor|round|lround|llround|trunc|fmod|remainder|ldexp|frexp|erf|tgamma|lgamma)\b)|)"
      R"(((^|[^:\w.])(sqrtf?|cbrtf?|powf?|expf?|exp2f?|logf?|log2f?|log10f?|sinf?|cosf?|tanf?|atanf?|atan2f?|fmaf?|ceilf?|floorf?|roundf?|truncf?|fmodf?|__(expf|exp10f|logf|log2f|log10f|sinf|cosf|tanf|sincosf|powf|fdividef|saturatef))\s*\())");
  EXPECT_GE(expect_no_match({"features"}, banned), 5u);
}

TEST(LibrarySources, CallNoInexactLibmFunction) {
  const std::regex banned(
      R"((\bstd::(cbrt|pow|exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|hypot|erf|erfc|tgamma|lgamma)\b)|)"
      R"(((^|[^:\w.])(cbrt|pow|exp|exp2|exp10|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|hypot|erf|erfc|tgamma|lgamma)[fl]?\s*\())");
  EXPECT_GE(expect_no_match({"numeric", "model", "core", "io", "output", "backends"}, banned), 40u);
}

}  // namespace
}  // namespace exactvmaf::test
