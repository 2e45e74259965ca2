// The R scaler's per-sample arithmetic (docs/input.md, "Scaling"): integers
// only, the same on the host and on a CUDA device. It is libswscale's
// bit-exact C path (FFmpeg 5.1, SWS_BITEXACT | SWS_ACCURATE_RND) for planar
// YUV of 8 to 12 bits: a horizontal pass from the source samples to 15-bit
// intermediates (one per source row and output column), then a vertical pass
// from those to output samples. The filters (positions and int16
// coefficients) come from the plan (io/rscale.hpp), built on the host.
#pragma once
#include <cstddef>
#include <cstdint>

#include "numeric/hd.hpp"

namespace exactvmaf::io::rscale {

// Horizontal pass: the 15-bit intermediate of one output column from one
// source row. `src` points at the filter's first source sample, `coef` at
// its coefficients (14-bit normalised), `taps` of them. `shift` is 7 for
// 8-bit sources and bitdepth - 1 above. The sum is a 32-bit int (no
// overflow for these depths); the result is capped at 32767 above and
// stored as int16 (never below -32768 for normalised filters).
template <class Sample>
EXACTVMAF_HD_INLINE std::int16_t hscale_sample(const Sample* src, const std::int16_t* coef, int taps, int shift) {
  std::int32_t val = 0;
  for (int j = 0; j < taps; ++j) val += static_cast<std::int32_t>(src[j]) * static_cast<std::int32_t>(coef[j]);
  std::int32_t out = val >> shift;  // arithmetic shift (C++20)
  if (out > 32767) out = 32767;
  return static_cast<std::int16_t>(out);
}

EXACTVMAF_HD_INLINE std::int32_t clip_int(std::int32_t v, std::int32_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }

// Vertical pass, filter of more than one tap (12-bit normalised
// coefficients): `col` points at the intermediate of the first source row in
// this output column, rows `row_stride` int16 apart; `taps` may be fewer
// than the filter's size where the rest have zero coefficients.
// 8-bit output: a rounding constant of 64 << 12 (libswscale's flat dither for
// 8-bit sources), the sum modulo 2^32, >> 19, clipped to [0, 255].
EXACTVMAF_HD_INLINE std::uint8_t vscale_sample_8(const std::int16_t* col, std::ptrdiff_t row_stride,
                                                 const std::int16_t* coef, int taps) {
  std::uint32_t val = 64u << 12;
  for (int j = 0; j < taps; ++j)
    val += static_cast<std::uint32_t>(static_cast<std::int32_t>(col[j * row_stride]) *
                                      static_cast<std::int32_t>(coef[j]));
  return static_cast<std::uint8_t>(clip_int(static_cast<std::int32_t>(val) >> 19, 255));
}

// 9- to 14-bit output of `bits` bits: rounding 1 << (26 - bits), >> (27 - bits), clipped.
EXACTVMAF_HD_INLINE std::uint16_t vscale_sample_hi(const std::int16_t* col, std::ptrdiff_t row_stride,
                                                   const std::int16_t* coef, int taps, int bits) {
  const int shift = 27 - bits;
  std::int32_t val = std::int32_t{1} << (shift - 1);
  for (int j = 0; j < taps; ++j)
    val += static_cast<std::int32_t>(col[j * row_stride]) * static_cast<std::int32_t>(coef[j]);
  return static_cast<std::uint16_t>(clip_int(val >> shift, (std::int32_t{1} << bits) - 1));
}

// Vertical filter of one tap (a dimension unchanged): the coefficient is not
// read. 8-bit: (v + 64) >> 7; `bits` above 8: (v + (1 << (14 - bits))) >> (15 - bits); clipped.
EXACTVMAF_HD_INLINE std::uint8_t vscale_one_8(std::int16_t v) {
  return static_cast<std::uint8_t>(clip_int((static_cast<std::int32_t>(v) + 64) >> 7, 255));
}
EXACTVMAF_HD_INLINE std::uint16_t vscale_one_hi(std::int16_t v, int bits) {
  const int shift = 15 - bits;
  return static_cast<std::uint16_t>(
      clip_int((static_cast<std::int32_t>(v) + (std::int32_t{1} << (shift - 1))) >> shift, (std::int32_t{1} << bits) - 1));
}

}  // namespace exactvmaf::io::rscale
