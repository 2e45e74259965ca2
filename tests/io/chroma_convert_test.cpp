// The chroma filters against values worked out by hand from the filter
// definitions (taps, edge clamping, (sum + 64) >> 7, clamp to [0, 255]).
#include <gtest/gtest.h>

#include <vector>

#include "io/chroma_convert.hpp"

namespace exactvmaf::io {
namespace {

using Row = std::vector<std::uint8_t>;

TEST(ChromaConvert, ShiftRightQuarterByHand) {
  // taps [4 -17 114 35 -9 1] at x-2..x+3, indices clamped to 0..3
  const Row src = {0, 0, 128, 255};
  Row dst(4, 77);
  chroma_shift_right_quarter(src.data(), 4, dst.data(), 4, 4, 1);
  // x=0: -9*128 + 1*255 = -897; (-897+64)>>7 < 0 -> 0
  // x=1: 35*128 - 9*255 + 255 = 2440; 2504>>7 = 19
  // x=2: 114*128 + 35*255 - 9*255 + 255 = 21477; 21541>>7 = 168
  // x=3: -17*128 + (114+35-9+1)*255 = 33779; 33843>>7 = 264 -> 255
  EXPECT_EQ(dst, (Row{0, 19, 168, 255}));
}

TEST(ChromaConvert, ShiftRightQuarterKeepsFlatRows) {
  // Taps sum to 128: a flat row maps to itself, at both edges too.
  const Row src(5, 200);
  Row dst(5, 0);
  chroma_shift_right_quarter(src.data(), 5, dst.data(), 5, 5, 1);
  EXPECT_EQ(dst, src);
}

TEST(ChromaConvert, NarrowRowsClampToTheEdges) {
  // One sample: every tap reads it, so it stays.
  const Row one = {77};
  Row out1 = {0};
  chroma_shift_right_quarter(one.data(), 1, out1.data(), 1, 1, 1);
  EXPECT_EQ(out1[0], 77);
  // Two samples [0, 128]: x=0 reads 0,0,0,128,128,128 -> (35-9+1)*128 = 3456; 3520>>7 = 27
  // x=1 reads 0,0,128,128,128,128 -> (114+35-9+1)*128 = 18048; 18112>>7 = 141
  const Row two = {0, 128};
  Row out2(2);
  chroma_shift_right_quarter(two.data(), 2, out2.data(), 2, 2, 1);
  EXPECT_EQ(out2, (Row{27, 141}));
}

TEST(ChromaConvert, VerticalShiftsByHand) {
  // One column [0, 0, 128, 255] stored with stride 1.
  const Row col = {0, 0, 128, 255};
  Row up(4), down(4);
  // up: taps [1 -9 35 114 -17 4] at y-3..y+2
  // y=0: 4*128 = 512; 576>>7 = 4
  // y=1: -17*128 + 4*255 = -1156 -> 0
  // y=2: 114*128 - 17*255 + 4*255 = 11277; 11341>>7 = 88
  // y=3: 35*128 + (114-17+4)*255 = 30235; 30299>>7 = 236
  chroma_shift_up_quarter(col.data(), 1, up.data(), 1, 1, 4);
  EXPECT_EQ(up, (Row{4, 0, 88, 236}));
  // down: the right-shift taps along the column
  chroma_shift_down_quarter(col.data(), 1, down.data(), 1, 1, 4);
  EXPECT_EQ(down, (Row{0, 19, 168, 255}));
}

TEST(ChromaConvert, VerticalUsesStridesAndColumns) {
  // 2 columns x 2 rows, stride 3 (one padding byte); column 1 is flat.
  const Row src = {128, 50, 9, 255, 50, 9};
  Row dst(6, 0xEE);
  chroma_shift_up_quarter(src.data(), 3, dst.data(), 3, 2, 2);
  // column 0 = [128, 255]:
  // y=0 reads rows 0,0,0,0,1,1: 141*128 - 13*255 = 14733; 14797>>7 = 115
  // y=1 reads rows 0,0,0,1,1,1: 27*128 + 101*255 = 29211; 29275>>7 = 228
  EXPECT_EQ(dst, (Row{115, 50, 0xEE, 228, 50, 0xEE}));
}

TEST(ChromaConvert, Upsample411ByHand) {
  // Source row [0, 255] (W = 7: 2 source samples, 4 output samples).
  // even taps [1 110 18 -1], odd taps [-3 50 86 -5], at x-1..x+2 clamped
  // x=0 even: 18*255 - 255 = 4335; 4399>>7 = 34
  // x=0 odd: 86*255 - 5*255 = 20655; 20719>>7 = 161
  // x=1 even: 110*255 + 18*255 - 255 = 32385; 32449>>7 = 253
  // x=1 odd: 50*255 + 86*255 - 5*255 = 33405; 33469>>7 = 261 -> 255
  const Row src = {0, 255};
  Row dst(4, 0);
  chroma_upsample_411_to_422(src.data(), 2, 2, dst.data(), 4, 4, 1);
  EXPECT_EQ(dst, (Row{34, 161, 253, 255}));
  // W = 5: 3 outputs; the fourth byte is not written.
  Row dst5(4, 0xEE);
  chroma_upsample_411_to_422(src.data(), 2, 2, dst5.data(), 4, 3, 1);
  EXPECT_EQ(dst5, (Row{34, 161, 253, 0xEE}));
  // W = 2: one source sample, one output: 111*v + 18*v - v = 128*v -> v
  const Row one = {200};
  Row dst1(2, 0xEE);
  chroma_upsample_411_to_422(one.data(), 1, 1, dst1.data(), 2, 1, 1);
  EXPECT_EQ(dst1, (Row{200, 0xEE}));
}

}  // namespace
}  // namespace exactvmaf::io
