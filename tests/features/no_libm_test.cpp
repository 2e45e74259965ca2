// DESIGN.md §2: feature arithmetic uses R's functions only. No host libm, no
// std:: math and no CUDA math library may appear in src/features.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

TEST(FeatureSources, CallNoLibmFunction) {
  const std::regex banned(
      R"((#\s*include\s*[<"](cmath|math\.h|cuda/std/cmath)[>"])|)"
      R"((\bstd::(sqrt|cbrt|pow|exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|hypot|fma|ceil|floor|round|lround|llround|trunc|fmod|remainder|ldexp|frexp|erf|tgamma|lgamma)\b)|)"
      R"(((^|[^:\w.])(sqrtf?|cbrtf?|powf?|expf?|exp2f?|logf?|log2f?|log10f?|sinf?|cosf?|tanf?|atanf?|atan2f?|fmaf?|ceilf?|floorf?|roundf?|truncf?|fmodf?|__(expf|exp10f|logf|log2f|log10f|sinf|cosf|tanf|sincosf|powf|fdividef|saturatef))\s*\())");
  std::size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(source_dir() / "src" / "features")) {
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
  EXPECT_GE(files, 5u);
}

}  // namespace
}  // namespace exactvmaf::test
