#include "io/chroma_convert.hpp"

#include <algorithm>

namespace exactvmaf::io {

namespace {

// Taps sum to 128: round, divide by 128 (arithmetic shift), clamp to 8 bits.
inline std::uint8_t round_clamp(int sum) {
  const int v = (sum + 64) >> 7;
  return static_cast<std::uint8_t>(std::clamp(v, 0, 255));
}

inline int clamp_index(int i, int n) { return std::clamp(i, 0, n - 1); }

// Six taps applied at offsets first..first+5 along a row.
void filter_rows_6(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint8_t* dst,
                   std::ptrdiff_t dst_stride, unsigned w, unsigned h, const int (&taps)[6], int first) {
  const int n = static_cast<int>(w);
  for (unsigned y = 0; y < h; ++y) {
    const std::uint8_t* s = src + static_cast<std::ptrdiff_t>(y) * src_stride;
    std::uint8_t* d = dst + static_cast<std::ptrdiff_t>(y) * dst_stride;
    for (int x = 0; x < n; ++x) {
      int sum = 0;
      for (int k = 0; k < 6; ++k) sum += taps[k] * s[clamp_index(x + first + k, n)];
      d[x] = round_clamp(sum);
    }
  }
}

// Six taps applied at offsets first..first+5 down a column.
void filter_columns_6(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint8_t* dst,
                      std::ptrdiff_t dst_stride, unsigned w, unsigned h, const int (&taps)[6], int first) {
  const int n = static_cast<int>(h);
  for (int y = 0; y < n; ++y) {
    const std::uint8_t* rows[6];
    for (int k = 0; k < 6; ++k) rows[k] = src + static_cast<std::ptrdiff_t>(clamp_index(y + first + k, n)) * src_stride;
    std::uint8_t* d = dst + static_cast<std::ptrdiff_t>(y) * dst_stride;
    for (unsigned x = 0; x < w; ++x) {
      int sum = 0;
      for (int k = 0; k < 6; ++k) sum += taps[k] * rows[k][x];
      d[x] = round_clamp(sum);
    }
  }
}

constexpr int kQuarterRight[6] = {4, -17, 114, 35, -9, 1};  // at -2..+3
constexpr int kQuarterUp[6] = {1, -9, 35, 114, -17, 4};     // at -3..+2

}  // namespace

void chroma_shift_right_quarter(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint8_t* dst,
                                std::ptrdiff_t dst_stride, unsigned w, unsigned h) {
  filter_rows_6(src, src_stride, dst, dst_stride, w, h, kQuarterRight, -2);
}

void chroma_shift_up_quarter(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint8_t* dst,
                             std::ptrdiff_t dst_stride, unsigned w, unsigned h) {
  filter_columns_6(src, src_stride, dst, dst_stride, w, h, kQuarterUp, -3);
}

void chroma_shift_down_quarter(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint8_t* dst,
                               std::ptrdiff_t dst_stride, unsigned w, unsigned h) {
  filter_columns_6(src, src_stride, dst, dst_stride, w, h, kQuarterRight, -2);
}

void chroma_upsample_411_to_422(const std::uint8_t* src, std::ptrdiff_t src_stride, unsigned src_w,
                                std::uint8_t* dst, std::ptrdiff_t dst_stride, unsigned dst_w, unsigned h) {
  constexpr int kEven[4] = {1, 110, 18, -1};  // site 1/8 pel right of source x
  constexpr int kOdd[4] = {-3, 50, 86, -5};   // site 5/8 pel right of source x
  const int n = static_cast<int>(src_w);
  for (unsigned y = 0; y < h; ++y) {
    const std::uint8_t* s = src + static_cast<std::ptrdiff_t>(y) * src_stride;
    std::uint8_t* d = dst + static_cast<std::ptrdiff_t>(y) * dst_stride;
    for (int x = 0; x < n; ++x) {
      int even = 0, odd = 0;
      for (int k = 0; k < 4; ++k) {
        const int v = s[clamp_index(x - 1 + k, n)];
        even += kEven[k] * v;
        odd += kOdd[k] * v;
      }
      const unsigned out = 2u * static_cast<unsigned>(x);
      if (out < dst_w) d[out] = round_clamp(even);
      if (out + 1 < dst_w) d[out + 1] = round_clamp(odd);
    }
  }
}

}  // namespace exactvmaf::io
