// The R scaler (src/io/rscale.*) gives libswscale's bytes: each case scales
// random frames (uniform, and extremes only to stress the clipping) and raw
// fixtures with io::RScalePlan and with libswscale through av::make_sws (the
// CLI's configuration), and compares every sample.
extern "C" {
#include <libswscale/swscale.h>
}

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "av/av_util.hpp"
#include "exactvmaf/error.hpp"
#include "exactvmaf/frame.hpp"
#include "io/rscale.hpp"
#include "support/fixtures.hpp"

namespace exactvmaf {
namespace {

using io::RScaleAlgorithm;

int sws_flag(RScaleAlgorithm a) {
  switch (a) {
    case RScaleAlgorithm::bilinear: return SWS_BILINEAR;
    case RScaleAlgorithm::lanczos: return SWS_LANCZOS;
    case RScaleAlgorithm::bicubic: break;
  }
  return SWS_BICUBIC;
}
const char* name(RScaleAlgorithm a) {
  return a == RScaleAlgorithm::bilinear ? "bilinear" : a == RScaleAlgorithm::lanczos ? "lanczos" : "bicubic";
}

void sws_run(const FrameBuffer& from, FrameBuffer& to, RScaleAlgorithm a, ColorRange range) {
  const VideoFormat& s = from.format();
  const VideoFormat& d = to.format();
  SwsContext* c = av::make_sws("test", static_cast<int>(s.width), static_cast<int>(s.height),
                               av::buffer_pix_fmt(s.pix_fmt, s.bitdepth), static_cast<int>(d.width),
                               static_cast<int>(d.height), av::buffer_pix_fmt(d.pix_fmt, d.bitdepth), sws_flag(a),
                               range);
  const std::uint8_t* src[4] = {from.plane(0), from.plane(1), from.plane(2), nullptr};
  int src_stride[4] = {static_cast<int>(from.stride(0)), static_cast<int>(from.stride(1)),
                       static_cast<int>(from.stride(2)), 0};
  std::uint8_t* dst[4] = {to.plane(0), to.plane(1), to.plane(2), nullptr};
  int dst_stride[4] = {static_cast<int>(to.stride(0)), static_cast<int>(to.stride(1)), static_cast<int>(to.stride(2)),
                       0};
  const int rows = sws_scale(c, src, src_stride, 0, static_cast<int>(s.height), dst, dst_stride);
  sws_freeContext(c);
  ASSERT_GT(rows, 0);
}

unsigned sample(const FrameBuffer& f, unsigned p, unsigned x, unsigned y) {
  const std::uint8_t* row = f.plane(p) + static_cast<std::ptrdiff_t>(y) * f.stride(p);
  if (f.format().bitdepth == 8) return row[x];
  std::uint16_t v;
  std::memcpy(&v, row + 2 * x, 2);
  return v;
}

// "" when equal, else the first differing sample and how many differ.
std::string compare(const FrameBuffer& ours, const FrameBuffer& sws) {
  const VideoFormat& f = ours.format();
  std::string first;
  std::size_t n = 0;
  for (unsigned p = 0; p < f.planes(); ++p)
    for (unsigned y = 0; y < f.plane_height(p); ++y)
      for (unsigned x = 0; x < f.plane_width(p); ++x) {
        const unsigned a = sample(ours, p, x, y), b = sample(sws, p, x, y);
        if (a == b) continue;
        if (first.empty()) first = fmt::format("plane {} x {} y {}: rscale {} libswscale {}", p, x, y, a, b);
        ++n;
      }
  return first.empty() ? first : fmt::format("{} ({} samples differ)", first, n);
}

void fill_random(FrameBuffer& fb, std::uint32_t seed, bool extremes) {
  std::mt19937 rng(seed);
  const VideoFormat& f = fb.format();
  const unsigned max = (1u << f.bitdepth) - 1;
  std::uniform_int_distribution<unsigned> any(0, max), bit(0, 1);
  for (unsigned p = 0; p < f.planes(); ++p)
    for (unsigned y = 0; y < f.plane_height(p); ++y) {
      std::uint8_t* row = fb.plane(p) + static_cast<std::ptrdiff_t>(y) * fb.stride(p);
      for (unsigned x = 0; x < f.plane_width(p); ++x) {
        const unsigned v = extremes ? bit(rng) * max : any(rng);
        if (f.bitdepth == 8) row[x] = static_cast<std::uint8_t>(v);
        else {
          const auto w = static_cast<std::uint16_t>(v);
          std::memcpy(row + 2 * x, &w, 2);
        }
      }
    }
}

// Scales `src` both ways to w x h; a failure names the case and the first difference.
void check(const FrameBuffer& src, unsigned w, unsigned h, RScaleAlgorithm a, const std::string& what,
           ColorRange range = ColorRange::limited) {
  VideoFormat df = src.format();
  df.width = w;
  df.height = h;
  FrameBuffer ours(df), sws(df);
  const io::RScalePlan plan(src.format(), w, h, a);
  plan.scale(src.view(), ours);
  sws_run(src, sws, a, range);
  const std::string diff = compare(ours, sws);
  EXPECT_EQ(diff, "") << what << ": " << src.format().describe() << " -> " << w << "x" << h << " " << name(a);
}

struct Size {
  unsigned sw, sh, dw, dh;
};

// Up, down, one dimension only, odd sizes, non-integer ratios, large ratios.
const Size kSizes[] = {
    {176, 144, 352, 288}, {352, 288, 176, 144}, {176, 144, 175, 97},  {175, 97, 352, 288}, {97, 61, 300, 171},
    {320, 240, 213, 119}, {100, 100, 100, 37},  {64, 48, 65, 48},     {64, 48, 64, 48},    {720, 480, 1920, 1080},
    {1920, 1080, 1280, 720}, {640, 360, 160, 90}, {640, 360, 79, 45}, {33, 17, 301, 203},  {16, 12, 100, 75},
    {351, 287, 350, 289},
};

const RScaleAlgorithm kAlgorithms[] = {RScaleAlgorithm::bicubic, RScaleAlgorithm::bilinear, RScaleAlgorithm::lanczos};

void check_random(PixelFormat pf, unsigned depth, ColorRange range = ColorRange::limited) {
  std::uint32_t seed = 1;
  for (const Size& s : kSizes) {
    VideoFormat f;
    f.width = s.sw;
    f.height = s.sh;
    f.pix_fmt = pf;
    f.bitdepth = depth;
    FrameBuffer src(f);
    for (const bool extremes : {false, true}) {
      fill_random(src, seed++, extremes);
      for (const RScaleAlgorithm a : kAlgorithms)
        check(src, s.dw, s.dh, a, extremes ? "random extremes" : "random", range);
    }
  }
}

TEST(RScale, Random420_8bit) { check_random(PixelFormat::yuv420, 8); }
// The CLI keeps the input's range on both sides: full range scales the same.
TEST(RScale, Random420_8bit_FullRange) { check_random(PixelFormat::yuv420, 8, ColorRange::full); }
TEST(RScale, Random420_10bit_UnknownRange) { check_random(PixelFormat::yuv420, 10, ColorRange::unknown); }
TEST(RScale, Random420_10bit) { check_random(PixelFormat::yuv420, 10); }
TEST(RScale, Random420_12bit) { check_random(PixelFormat::yuv420, 12); }
TEST(RScale, Random422_8bit) { check_random(PixelFormat::yuv422, 8); }
TEST(RScale, Random422_10bit) { check_random(PixelFormat::yuv422, 10); }
TEST(RScale, Random444_8bit) { check_random(PixelFormat::yuv444, 8); }
TEST(RScale, Random444_10bit) { check_random(PixelFormat::yuv444, 10); }

// The large cases of --scale: 720p -> 1080p, 4K -> 1080p, 1080p -> 4K.
TEST(RScale, RandomLarge420_8bit) {
  const Size sizes[] = {{1280, 720, 1920, 1080}, {3840, 2160, 1920, 1080}, {1920, 1080, 3840, 2160}};
  std::uint32_t seed = 100;
  for (const Size& s : sizes) {
    VideoFormat f;
    f.width = s.sw;
    f.height = s.sh;
    FrameBuffer src(f);
    fill_random(src, seed++, false);
    for (const RScaleAlgorithm a : kAlgorithms) check(src, s.dw, s.dh, a, "random");
  }
}

// Many random size pairs, 1 to 8 times up or down in each direction
// independently, and a step within libswscale's "unscaled" tolerance
// (7000 <-> 7001: |x_inc - 1.0| < 10 / 65536).
void check_sweep(PixelFormat pf, unsigned depth, unsigned count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<unsigned> size(4, 400), ratio(0, 3);
  const auto other = [&](unsigned n) {
    const unsigned r = ratio(rng);
    std::uniform_int_distribution<unsigned> scale(0, 1);
    const unsigned k = 1u << r;  // 1, 2, 4, 8
    unsigned m = scale(rng) ? n * k + size(rng) % (k + 3) : n / k + size(rng) % 3;
    return m < 2 ? 2u : m;
  };
  std::vector<Size> sizes = {{7000, 4, 7001, 6}, {7001, 6, 7000, 4}};
  for (unsigned i = 0; i < count; ++i) {
    const unsigned sw = size(rng), sh = size(rng);
    sizes.push_back({sw, sh, other(sw), other(sh)});
  }
  for (const Size& s : sizes) {
    VideoFormat f;
    f.width = s.sw;
    f.height = s.sh;
    f.pix_fmt = pf;
    f.bitdepth = depth;
    FrameBuffer src(f);
    fill_random(src, seed, (seed & 1) != 0);
    ++seed;
    for (const RScaleAlgorithm a : kAlgorithms) check(src, s.dw, s.dh, a, "size sweep");
  }
}

TEST(RScale, SizeSweep420_8bit) { check_sweep(PixelFormat::yuv420, 8, 150, 7); }
TEST(RScale, SizeSweep422_10bit) { check_sweep(PixelFormat::yuv422, 10, 40, 8); }
TEST(RScale, SizeSweep444_8bit) { check_sweep(PixelFormat::yuv444, 8, 40, 9); }

// Tiny planes (filters wider than the source, every tap at a border).
TEST(RScale, TinySizes) {
  for (const PixelFormat pf : {PixelFormat::yuv420, PixelFormat::yuv444})
    for (unsigned sw = 1; sw <= 9; sw += 2)
      for (unsigned sh = 2; sh <= 9; sh += 3)
        for (const Size& d : {Size{0, 0, 1, 1}, Size{0, 0, 2, 3}, Size{0, 0, 5, 4}, Size{0, 0, 17, 13}}) {
          VideoFormat f;
          f.width = sw;
          f.height = sh;
          f.pix_fmt = pf;
          FrameBuffer src(f);
          fill_random(src, sw * 100 + sh, false);
          for (const RScaleAlgorithm a : kAlgorithms) check(src, d.dw, d.dh, a, "tiny");
        }
}

// Raw fixtures: the first frames of the ref and dist clips.
void check_fixture(const std::string& file, unsigned w, unsigned h, PixelFormat pf, unsigned depth,
                   const std::vector<std::pair<unsigned, unsigned>>& to, unsigned frames) {
  VideoFormat f;
  f.width = w;
  f.height = h;
  f.pix_fmt = pf;
  f.bitdepth = depth;
  std::ifstream in(test::fixtures_dir() / file, std::ios::binary);
  ASSERT_TRUE(in) << file;
  FrameBuffer src(f);
  for (unsigned n = 0; n < frames; ++n) {
    for (unsigned p = 0; p < f.planes(); ++p)
      for (unsigned y = 0; y < f.plane_height(p); ++y)
        in.read(reinterpret_cast<char*>(src.plane(p) + static_cast<std::ptrdiff_t>(y) * src.stride(p)),
                static_cast<std::streamsize>(src.row_bytes(p)));
    ASSERT_TRUE(in) << file << " frame " << n;
    for (const auto& [dw, dh] : to)
      for (const RScaleAlgorithm a : kAlgorithms) check(src, dw, dh, a, fmt::format("{} frame {}", file, n));
  }
}

const std::vector<std::pair<unsigned, unsigned>> kFrom176 = {{352, 288}, {88, 72}, {1920, 1080}, {131, 77}};

TEST(RScale, Fixtures420_8bit) {
  check_fixture("c01_176x144_8b_420_ref.yuv", 176, 144, PixelFormat::yuv420, 8, kFrom176, 2);
  check_fixture("c01_176x144_8b_420_dist.yuv", 176, 144, PixelFormat::yuv420, 8, kFrom176, 2);
  check_fixture("c02_175x97_8b_420_dist.yuv", 175, 97, PixelFormat::yuv420, 8, {{352, 288}, {87, 49}}, 2);
  check_fixture("b02_1920x1080_8b_420_dist.yuv", 1920, 1080, PixelFormat::yuv420, 8,
                {{1280, 720}, {960, 540}, {3840, 2160}}, 1);
}
TEST(RScale, Fixtures10bit) {
  check_fixture("c03_176x144_10b_420_dist.yuv", 176, 144, PixelFormat::yuv420, 10, kFrom176, 2);
  check_fixture("b01_320x240_10b_420_dist.yuv", 320, 240, PixelFormat::yuv420, 10, {{1920, 1080}, {160, 120}}, 1);
  check_fixture("c08_176x144_10b_422_dist.yuv", 176, 144, PixelFormat::yuv422, 10, kFrom176, 1);
}
TEST(RScale, Fixtures422_444_8bit) {
  check_fixture("c05_176x144_8b_422_dist.yuv", 176, 144, PixelFormat::yuv422, 8, kFrom176, 1);
  check_fixture("c06_176x144_8b_444_dist.yuv", 176, 144, PixelFormat::yuv444, 8, kFrom176, 1);
}

TEST(RScale, RefusesWhatItCannotMatch) {
  VideoFormat f;
  f.width = 64;
  f.height = 48;
  f.pix_fmt = PixelFormat::yuv400;
  EXPECT_THROW(io::RScalePlan(f, 32, 24, RScaleAlgorithm::bicubic), Error);
  f.pix_fmt = PixelFormat::yuv420;
  f.bitdepth = 16;
  EXPECT_THROW(io::RScalePlan(f, 32, 24, RScaleAlgorithm::bicubic), Error);
  // Filters of 170 taps or more: libswscale cascades two scalers (vertically)
  // or fails (horizontally); we refuse.
  f.bitdepth = 8;
  f.width = 64;
  f.height = 4000;
  EXPECT_THROW(io::RScalePlan(f, 64, 20, RScaleAlgorithm::bicubic), Error);
  f.width = 4000;
  f.height = 64;
  EXPECT_THROW(io::RScalePlan(f, 20, 64, RScaleAlgorithm::lanczos), Error);
  EXPECT_NO_THROW(io::RScalePlan(f, 200, 64, RScaleAlgorithm::bicubic));
}

}  // namespace
}  // namespace exactvmaf
