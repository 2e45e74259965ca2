// The number formats: libvmaf's legacy rule (checked against hand-derived
// strings and against a C oracle), %.17g, %.Nf, and parsing --precision.
#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp, setenv (POSIX)

#include <bit>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exactvmaf/error.hpp"
#include "exactvmaf/output.hpp"
#include "output/legacy_oracle.h"
#include "output/number_format.hpp"

namespace exactvmaf {
namespace {

const NumberFormat kLegacy{};

std::string legacy(double v, OutputFormat where = OutputFormat::xml) {
  return format_number(v, kLegacy, where);
}

std::string oracle(double v, bool json) {
  char buf[512];
  oracle_legacy_token(v, json ? 1 : 0, buf, sizeof buf);
  return buf;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kNegNaN = std::bit_cast<double>(std::uint64_t{0xfff8000000000000u});

TEST(Truncation, MatchesCvttsd2si) {
  using detail::x86_truncate_to_int32;
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(x86_truncate_to_int32(0.0), 0);
  EXPECT_EQ(x86_truncate_to_int32(-0.0), 0);
  EXPECT_EQ(x86_truncate_to_int32(2.9), 2);
  EXPECT_EQ(x86_truncate_to_int32(-2.9), -2);
  EXPECT_EQ(x86_truncate_to_int32(2147483647.9), 2147483647);
  EXPECT_EQ(x86_truncate_to_int32(-2147483648.9), kMin);
  EXPECT_EQ(x86_truncate_to_int32(2147483648.0), kMin);
  EXPECT_EQ(x86_truncate_to_int32(-2147483649.0), kMin);
  EXPECT_EQ(x86_truncate_to_int32(1e300), kMin);
  EXPECT_EQ(x86_truncate_to_int32(kInf), kMin);
  EXPECT_EQ(x86_truncate_to_int32(-kInf), kMin);
  EXPECT_EQ(x86_truncate_to_int32(kNaN), kMin);
}

TEST(LeadingZeros, HandDerivedCounts) {
  using detail::upstream_leading_zeros;
  EXPECT_EQ(upstream_leading_zeros(0.0), 0);
  EXPECT_EQ(upstream_leading_zeros(-0.0), 0);
  EXPECT_EQ(upstream_leading_zeros(60.0), 0);
  EXPECT_EQ(upstream_leading_zeros(0.5), 1);
  EXPECT_EQ(upstream_leading_zeros(0.05), 2);
  EXPECT_EQ(upstream_leading_zeros(1e-7), 7);
  // The double nearest 1e-6 is below 1e-6, yet six steps of *10 round up
  // to exactly 1.0: six, not seven.
  EXPECT_EQ(upstream_leading_zeros(1e-6), 6);
  // Same for 1e-7: seven steps reach 1.0 (exactly it would take eight).
  EXPECT_EQ(upstream_leading_zeros(1e-7), 7);
  // 1.000001 has fraction 9.99999999917733e-07: seven.
  EXPECT_EQ(upstream_leading_zeros(1.000001), 7);
  EXPECT_EQ(upstream_leading_zeros(5e-324), 324);
  EXPECT_EQ(upstream_leading_zeros(2.2250738585072014e-308), 308);
  // |x| >= 2^31: (int)x is INT_MIN, fraction x + 2^31 >= 1: zero steps.
  EXPECT_EQ(upstream_leading_zeros(2147483648.0 + 0x1p-21), 0);
  EXPECT_EQ(upstream_leading_zeros(-(2147483648.0 + 0x1p-21)), 0);
  EXPECT_EQ(upstream_leading_zeros(kNaN), 0);
  EXPECT_EQ(upstream_leading_zeros(kInf), 0);
  EXPECT_EQ(upstream_leading_zeros(-kInf), 0);
}

struct Case {
  double value;
  const char* text;  // upstream's XML/CSV token
};

TEST(Legacy, HandDerivedStrings) {
  const std::vector<Case> cases = {
      {0.0, "0.000000"},
      {-0.0, "-0.000000"},  // upstream keeps the sign of -0.0
      {1.0, "1.000000"},
      {60.0, "60.000000"},
      {97.428043, "97.428043"},
      {0.9999999, "1.000000"},
      {1e-7, "0.0000001000000000"},
      {-1e-9, "-0.0000000010000000"},
      {1e-6, "0.000001"},
      {1.000001, "1.0000009999999999"},
      {1.0000003744116355, "1.0000003744116355"},
      {123.0000004, "123.0000004000000047"},
      {0.0000004, "0.0000004000000000"},
      {2147483647.5, "2147483647.500000"},
      {2147483648.5, "2147483648.500000"},
      {2147483648.0 + 0x1p-21, "2147483648.000000"},  // INT_MIN path: %.6f
      {-2147483648.0, "-2147483648.000000"},
      {5e-324, "0.0000000000000000"},
      {-5e-324, "-0.0000000000000000"},
      {2.2250738585072014e-308, "0.0000000000000000"},
      {kInf, "inf"},
      {-kInf, "-inf"},
      {kNaN, "nan"},
      {kNegNaN, "-nan"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(legacy(c.value, OutputFormat::xml), c.text) << c.value;
    EXPECT_EQ(legacy(c.value, OutputFormat::csv), c.text) << c.value;
    const std::string json = std::isfinite(c.value) ? c.text : "null";
    EXPECT_EQ(legacy(c.value, OutputFormat::json), json) << c.value;
  }
  const std::string big = legacy(1e300);
  EXPECT_EQ(big.size(), 301u + 7u);
  EXPECT_EQ(big.substr(0, 20), "10000000000000000525");
  EXPECT_EQ(big.substr(big.size() - 7), ".000000");
  EXPECT_EQ(legacy(-1.7976931348623157e308).size(), 1u + 309u + 7u);
}

// Values spread over every region of the rule, each compared with the C oracle.
std::vector<double> oracle_values() {
  std::vector<double> v = {0.0, -0.0, 1e-7, -1e-7, 0.9999999, 123.0000004, 1e300, -1e300,
                           2147483648.5, -2147483648.0, 2147483647.0, -2147483647.5,
                           kNaN, kNegNaN, kInf, -kInf, 5e-324, -5e-324,
                           std::numeric_limits<double>::min(), std::numeric_limits<double>::max()};
  // Around every 10^-k boundary and every integer part near it, ulp by ulp.
  for (double ip : {0.0, 1.0, 3.0, 42.0, 99.0, 1000.0, 65535.0, 2147483647.0}) {
    for (int k = 1; k <= 12; ++k) {
      double x = ip + std::pow(10.0, -k);
      for (int s = 0; s < 64; ++s) x = std::nextafter(x, 0.0);
      for (int s = 0; s < 128; ++s) {
        v.push_back(x);
        v.push_back(-x);
        x = std::nextafter(x, kInf);
      }
    }
  }
  std::mt19937_64 rng(20261129);
  // Random bit patterns (every exponent, NaN payloads, subnormals).
  for (int i = 0; i < 20000; ++i) v.push_back(std::bit_cast<double>(rng()));
  // Random scores in the usual ranges, with small fractions.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 20000; ++i) {
    const double ip = std::floor(unit(rng) * 200.0);
    v.push_back(ip + std::pow(10.0, -1.0 - 12.0 * unit(rng)));
    v.push_back(unit(rng) * std::pow(10.0, -10.0 * unit(rng)));
  }
  return v;
}

TEST(Legacy, AgreesWithCOracle) {
  int checked = 0, differing = 0;
  for (double x : oracle_values()) {
    ASSERT_EQ(detail::upstream_leading_zeros(x), oracle_fraction_shifts(x))
        << std::hexfloat << x;
    for (OutputFormat where : {OutputFormat::xml, OutputFormat::json, OutputFormat::csv}) {
      const std::string got = legacy(x, where);
      const std::string want = oracle(x, where == OutputFormat::json);
      if (got != want && differing++ < 5)
        ADD_FAILURE() << std::hexfloat << x << ": got " << got << ", oracle " << want;
      ++checked;
    }
  }
  EXPECT_EQ(differing, 0) << "of " << checked;
  EXPECT_GT(checked, 100000);
}

// A host application with a comma decimal point must not change reports.
// Containers rarely ship such a locale: build one with localedef if needed.
TEST(Legacy, IndependentOfLcNumeric) {
  const char* set = std::setlocale(LC_NUMERIC, "de_DE.UTF-8");
  std::filesystem::path built;
  if (set == nullptr) {
    char dir_template[] = "/tmp/exactvmaf-locale-XXXXXX";
    if (mkdtemp(dir_template) != nullptr) {
      built = dir_template;
      const std::string cmd = "localedef -i de_DE -f UTF-8 '" + built.string() +
                              "/de_DE.UTF-8' >/dev/null 2>&1";
      if (std::system(cmd.c_str()) == 0) {
        setenv("LOCPATH", built.c_str(), 1);
        set = std::setlocale(LC_NUMERIC, "de_DE.UTF-8");
      }
    }
  }
  std::string plain_printf;
  if (set != nullptr) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f", 1.5);
    plain_printf = buf;
  }
  const std::string ours_legacy = legacy(1.5);
  const std::string ours_max = format_number(1.5, NumberFormat::parse("max"), OutputFormat::json);
  std::setlocale(LC_NUMERIC, "C");
  if (!built.empty()) {
    unsetenv("LOCPATH");
    std::error_code ec;
    std::filesystem::remove_all(built, ec);
  }
  EXPECT_EQ(ours_legacy, "1.500000");
  EXPECT_EQ(ours_max, "1.5");
  if (set == nullptr) GTEST_SKIP() << "no comma locale available; checked in C only";
  EXPECT_EQ(plain_printf, "1,5");  // the locale really was in effect
}

TEST(Max, RoundTripsAndKeepsSign) {
  const NumberFormat nf = NumberFormat::parse("max");
  EXPECT_EQ(format_number(0.1, nf, OutputFormat::json), "0.10000000000000001");
  EXPECT_EQ(format_number(60.0, nf, OutputFormat::json), "60");
  EXPECT_EQ(format_number(1e-7, nf, OutputFormat::csv), "9.9999999999999995e-08");
  // -0.0: upstream prints a minus sign for it too ("-0.000000").
  EXPECT_EQ(format_number(-0.0, nf, OutputFormat::xml), "-0");
  EXPECT_EQ(format_number(kInf, nf, OutputFormat::json), "null");
  EXPECT_EQ(format_number(kNaN, nf, OutputFormat::json), "null");
  EXPECT_EQ(format_number(kInf, nf, OutputFormat::xml), "inf");
  EXPECT_EQ(format_number(kNegNaN, nf, OutputFormat::csv), "-nan");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const double x = std::bit_cast<double>(rng());
    if (!std::isfinite(x)) continue;
    const std::string s = format_number(x, nf, OutputFormat::json);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(std::strtod(s.c_str(), nullptr)),
              std::bit_cast<std::uint64_t>(x))
        << s;
  }
}

TEST(Fixed, DigitCounts) {
  EXPECT_EQ(format_number(1.23456789, NumberFormat::parse("0"), OutputFormat::json), "1");
  EXPECT_EQ(format_number(1.23456789, NumberFormat::parse("3"), OutputFormat::json), "1.235");
  EXPECT_EQ(format_number(1e-7, NumberFormat::parse("6"), OutputFormat::json), "0.000000");
  EXPECT_EQ(format_number(1e-7, NumberFormat::parse("17"), OutputFormat::xml),
            "0.00000010000000000");
  EXPECT_EQ(format_number(-kInf, NumberFormat::parse("4"), OutputFormat::xml), "-inf");
  EXPECT_EQ(format_number(-kInf, NumberFormat::parse("4"), OutputFormat::json), "null");
}

TEST(Parse, AcceptsAndRejects) {
  EXPECT_EQ(NumberFormat::parse("legacy").kind, NumberFormat::Kind::legacy);
  EXPECT_EQ(NumberFormat::parse("max").kind, NumberFormat::Kind::max);
  for (int n = 0; n <= 17; ++n) {
    const NumberFormat nf = NumberFormat::parse(std::to_string(n));
    EXPECT_EQ(nf.kind, NumberFormat::Kind::fixed);
    EXPECT_EQ(nf.digits, n);
  }
  EXPECT_EQ(NumberFormat::parse("06").digits, 6);
  for (const char* bad : {"", "18", "99", "-1", "+3", " 3", "3 ", "100", "Max", "legacy2", "1e1",
                          "3.5", "x"})
    EXPECT_THROW(NumberFormat::parse(bad), Error) << '"' << bad << '"';
  try {
    NumberFormat::parse("abc");
    FAIL();
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--precision"), std::string::npos);
    EXPECT_NE(msg.find("abc"), std::string::npos);
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST(Fps, TwoDecimalsOrNull) {
  EXPECT_EQ(detail::format_fps(123.456, true), "123.46");
  EXPECT_EQ(detail::format_fps(0.0, false), "0.00");
  EXPECT_EQ(detail::format_fps(kInf, true), "null");
  EXPECT_EQ(detail::format_fps(kInf, false), "inf");
  EXPECT_EQ(detail::format_fps(kNaN, true), "null");
}

}  // namespace
}  // namespace exactvmaf
