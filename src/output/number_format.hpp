// Internals of the number formats (output.hpp), exposed for the tests.
#pragma once
#include <cstdint>
#include <string>

namespace exactvmaf::detail {

// What a C `(int)x` cast compiles to on x86-64 (CVTTSD2SI): truncation toward
// zero, and INT_MIN for NaN and for anything outside the int32 range. Written
// out so that no undefined conversion happens in our code.
std::int32_t x86_truncate_to_int32(double x);

// libvmaf's count_leading_zeros_d (output.c): the number of times the
// fractional part |x| - (int)|x| is multiplied by 10 (in double, rounding at
// every step) before it reaches 1; 0 when the fractional part is 0. The
// legacy rule prints "%.6f" when this is <= 6 and "%.16f" otherwise.
int upstream_leading_zeros(double x);

// printf-style formatting through the C library (glibc's exact decimal
// conversion). `conversion` is e.g. "%.6f"; one double argument.
std::string c_format_double(const char* conversion, double v);

// "%.2f" as libvmaf prints fps; JSON prints null for non-finite.
std::string format_fps(double fps, bool json);

}  // namespace exactvmaf::detail
