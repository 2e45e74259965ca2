// Number formats of the reports: libvmaf's legacy rule, %.17g and %.Nf.
#include "output/number_format.hpp"

#include <locale.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "exactvmaf/error.hpp"
#include "exactvmaf/output.hpp"
#include "numeric/fpenv.hpp"

namespace exactvmaf {
namespace detail {

std::int32_t x86_truncate_to_int32(double x) {
  constexpr std::int32_t kIndefinite = std::numeric_limits<std::int32_t>::min();
  // In range: (-2^31 - 1, 2^31), truncation fits. Everything else, NaN
  // included (both comparisons false), is the "integer indefinite" value.
  if (x > -2147483649.0 && x < 2147483648.0) return static_cast<std::int32_t>(x);
  return kIndefinite;
}

int upstream_leading_zeros(double x) {
  // Upstream: `if (x < 0) x = fabs(x);` -- so -0.0 and NaN keep their sign.
  if (x < 0) x = -x;
  const std::int32_t int_part = x86_truncate_to_int32(x);
  double fractional = x - static_cast<double>(int_part);
  int count = 0;
  // Same loop, same double rounding at each step: which side of 1.0 the
  // product lands on decides %.6f vs %.16f near the 1e-6 boundary. A
  // subnormal fraction needs about 324 steps; NaN and inf stop at once.
  while (fractional < 1.0 && fractional != 0) {
    fractional *= 10;
    ++count;
  }
  return count;
}

namespace {

// printf's decimal point follows LC_NUMERIC; a host application may have set
// one with a comma. Format in the "C" locale on this thread, then restore.
class CLocaleScope {
 public:
  CLocaleScope() {
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
    if (c_locale != static_cast<locale_t>(nullptr)) previous_ = uselocale(c_locale);
  }
  ~CLocaleScope() {
    if (previous_ != static_cast<locale_t>(nullptr)) uselocale(previous_);
  }
  CLocaleScope(const CLocaleScope&) = delete;
  CLocaleScope& operator=(const CLocaleScope&) = delete;

 private:
  locale_t previous_ = static_cast<locale_t>(nullptr);
};

}  // namespace

std::string c_format_double(const char* conversion, double v) {
  const CLocaleScope c_locale;
  char small[64];
  const int n = std::snprintf(small, sizeof small, conversion, v);
  if (n < 0) return std::string();
  if (static_cast<std::size_t>(n) < sizeof small) return std::string(small, static_cast<std::size_t>(n));
  // Large magnitudes in %f: up to 309 integer digits.
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), conversion, v);
  big.resize(static_cast<std::size_t>(n));
  return big;
}

std::string format_fps(double fps, bool json) {
  if (json && !std::isfinite(fps)) return "null";
  return c_format_double("%.2f", fps);
}

}  // namespace detail

NumberFormat NumberFormat::parse(const std::string& s) {
  NumberFormat nf;
  if (s == "legacy") {
    nf.kind = Kind::legacy;
    nf.digits = 6;
    return nf;
  }
  if (s == "max") {
    nf.kind = Kind::max;
    nf.digits = 17;
    return nf;
  }
  // One or two decimal digits, value 0..17 (no sign, no spaces).
  bool digits_only = !s.empty() && s.size() <= 2;
  for (char c : s) digits_only = digits_only && c >= '0' && c <= '9';
  if (digits_only) {
    const int n = std::stoi(s);
    if (n <= 17) {
      nf.kind = Kind::fixed;
      nf.digits = n;
      return nf;
    }
  }
  throw Error("--precision: expected legacy, max or a digit count 0..17, got \"" + s + "\"");
}

std::string format_number(double v, const NumberFormat& nf, OutputFormat where) {
  FpEnvGuard env;  // printf rounds decimals in the current rounding mode
  // libvmaf's JSON writer prints null for inf and NaN (fpclassify); its XML
  // and CSV writers pass them to printf ("inf", "-inf", "nan", "-nan").
  // Signs are never rewritten: upstream prints -0.0 as "-0.000000" (and a
  // negative value below 1e-6 in magnitude with %.16f, never as -0.000000),
  // so max prints "-0" for -0.0 and %.Nf prints whatever printf gives.
  if (where == OutputFormat::json && !std::isfinite(v)) return "null";
  switch (nf.kind) {
    case NumberFormat::Kind::legacy:
      return detail::c_format_double(detail::upstream_leading_zeros(v) <= 6 ? "%.6f" : "%.16f", v);
    case NumberFormat::Kind::max:
      return detail::c_format_double("%.17g", v);
    case NumberFormat::Kind::fixed: {
      const int digits = nf.digits < 0 ? 0 : (nf.digits > 17 ? 17 : nf.digits);
      char conversion[8];
      std::snprintf(conversion, sizeof conversion, "%%.%df", digits);
      return detail::c_format_double(conversion, v);
    }
  }
  return detail::c_format_double("%.6f", v);
}

}  // namespace exactvmaf
