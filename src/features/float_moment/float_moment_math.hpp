// float_moment (libvmaf float_moment.c + moment.c, f85a853): the whole
// per-frame arithmetic, host and device (docs/features/float_moment.md).
//
// Upstream converts each luma sample to a float v = (float)s / scaler + 0
// (scaler 1, 4, 16, 256 for 8, 10, 12, 16 bits: exact), then
//   1st moment: a double sum of the floats v in raster order, / (w*h);
//   2nd moment: a double sum of the float products v*v in raster order, / (w*h)
// (w*h an int product, converted to double by the division).
//
// Exactness that lets the CPU sum integers: every term is an integer
// multiple of a power of two, u * 2^-k (1st: u = s, 2^-k = 1/scaler; 2nd:
// u = square_units, 2^-k = 1/scaler^2), so while the integer total of the
// nonnegative u stays below 2^53 every partial sum of upstream's double chain
// is exact, and the chain's result is (double)total * 2^-k
// (moment_from_units). Where the total reaches 2^53 (16-bit second moments
// of frames above 2^21 samples, at the earliest) the caller runs R's chain
// itself (double_chain_*).
#pragma once
#include <cstdint>

#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_moment {

// picture_copy's divisor: 1, 4, 16, 256 for 8, 10, 12, 16 bits.
EXACTVMAF_HD_INLINE float scaler_of(unsigned bpc) {
  return bpc == 8 ? 1.0f : bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
}

// picture_copy: (float)s / scaler + 0 (offset 0 adds exactly).
EXACTVMAF_HD_INLINE float sample_value(std::uint16_t s, float scaler) { return static_cast<float>(s) / scaler; }

// The second moment's term: the float product v*v (rounded to float: exact
// up to 12 bits, 24 significant bits of s*s at 16).
EXACTVMAF_HD_INLINE float square_value(float v) { return v * v; }

// The term square_value(sample_value(s)) in units of scaler^-2: an integer
// below 2^32 (the product is a multiple of scaler^-2 whether or not it was
// rounded: rounding to 24 bits keeps multiples of that unit for any value at
// or above 2^24 units, and smaller products are exact), so the conversion
// is exact.
EXACTVMAF_HD_INLINE std::uint64_t square_units(std::uint16_t s, float scaler) {
  return static_cast<std::uint64_t>(square_value(sample_value(s, scaler)) * (scaler * scaler));
}

// One row's integer totals (the host's fast path; the device's too).
template <class Sample>
EXACTVMAF_HD inline std::uint64_t row_sum_units(const Sample* row, unsigned w) {
  std::uint64_t sum = 0;
  for (unsigned x = 0; x < w; ++x) sum += row[x];
  return sum;
}
// Up to 12 bits the square is exact: s*s (in units of scaler^-2).
template <class Sample>
EXACTVMAF_HD inline std::uint64_t row_sum_square_units_exact(const Sample* row, unsigned w) {
  std::uint64_t sum = 0;
  for (unsigned x = 0; x < w; ++x) {
    const std::uint32_t s = row[x];
    sum += s * s;
  }
  return sum;
}
// 16 bits: the float product's units.
EXACTVMAF_HD inline std::uint64_t row_sum_square_units_16(const std::uint16_t* row, unsigned w) {
  std::uint64_t sum = 0;
  for (unsigned x = 0; x < w; ++x) sum += square_units(row[x], 256.0f);
  return sum;
}

inline constexpr std::uint64_t kExactChainLimit = std::uint64_t{1} << 53;

// Upstream's chain result from the integer total (total < kExactChainLimit):
// total * unit exactly (unit a power of two), then / (w*h).
EXACTVMAF_HD_INLINE double moment_from_units(std::uint64_t total, double unit, int w, int h) {
  const double cum = static_cast<double>(total) * unit;
  return cum / static_cast<double>(w * h);
}

// R's chains as upstream writes them, one row at a time (for totals at or
// above 2^53): cum += v, cum += v*v in raster order.
template <class Sample>
EXACTVMAF_HD inline void double_chain_row(const Sample* row, unsigned w, float scaler, double& cum1, double& cum2) {
  for (unsigned x = 0; x < w; ++x) {
    const float v = sample_value(row[x], scaler);
    cum1 += static_cast<double>(v);
    cum2 += static_cast<double>(square_value(v));
  }
}

EXACTVMAF_HD_INLINE double moment_from_chain(double cum, int w, int h) { return cum / static_cast<double>(w * h); }

}  // namespace exactvmaf::float_moment
