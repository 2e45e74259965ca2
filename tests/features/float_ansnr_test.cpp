// float_ansnr against the golden numbers of upstream libvmaf
// (tests/golden/README.md, group float_ansnr of runs.json): every run bit
// for bit against R on every frame and pooled value, output names and order,
// the distance to plain upstream as the goldens measure it (glibc's log10),
// thread invariance; the device's per-sample filter_at against the CPU's
// filter_row on every sample of random planes down to 3x3; the CPU's frame
// sums against ansnr.c / ansnr_tools.c's loops written here; the refusal of
// planes below 3x3 and of other bit depths; the capped and the -inf scores
// (identical flat pictures, a flat reference).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/float_ansnr/float_ansnr_host.hpp"
#include "features/float_ansnr/float_ansnr_math.hpp"
#include "support/cli_run.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

const std::map<std::string, GoldenRun>& ansnr_runs() { return golden_runs_of("float_ansnr"); }
std::vector<GoldenCase> ansnr_cases() { return golden_cases_for(ansnr_runs()); }

class FloatAnsnrGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FloatAnsnrGolden, EqualsRBitForBitAndMeasuresUpstream) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = ansnr_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto up_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(up_path)) << up_path;
  const auto r = read_json(r_path);
  const auto up = read_json(up_path);

  const RunResult ours = run_golden(*pair, run);
  ASSERT_GT(ours.frames, 0u);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, 0u);
  EXPECT_EQ(vs_r.values, ours.frames * 2 + 2 * 4);  // 2 outputs per frame, 4 pooled values each
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  EXPECT_EQ(metric_names(ours), golden_metric_names(r_path));
  EXPECT_EQ(metric_names(ours), (std::vector<std::string>{"float_ansnr", "float_anpsnr"}));

  // The distance to plain upstream (glibc's log10) is the distance between
  // the two goldens: measured there, asserted here.
  const GoldenComparison vs_up = compare_with_golden(up, ours, run.subsample);
  const FileDistance files = file_distance(r, up);
  EXPECT_EQ(vs_up.differing, files.frame_differing + files.pooled_differing) << "first: " << vs_up.first_difference;
  EXPECT_EQ(vs_up.max_ulps, files.max_ulps);
  report_upstream_distance(gc, vs_up);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FloatAnsnrGolden, ::testing::ValuesIn(ansnr_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FloatAnsnrGolden);

TEST(FloatAnsnrGoldenSet, IsPresent) {
  // One run on each of the 18 pairs (an empty or shrunken set fails here).
  EXPECT_EQ(ansnr_runs().size(), 1u);
  EXPECT_EQ(fixture_pairs().size(), 18u);
  EXPECT_EQ(ansnr_cases().size(), 18u);
}

// Upstream vs R over the group, from the goldens (tests/golden/README.md:
// "float_ansnr 1 of 174": c05's frame 2, one ulp, 1.8e-15, of glibc's log10).
TEST(FloatAnsnrGoldenSet, UpstreamDistanceAsMeasured) {
  FileDistance all;
  for (const auto& c : ansnr_cases()) {
    const auto d = file_distance(read_json(golden_dir() / "r" / c.pair / (c.run + ".json")),
                                 read_json(golden_dir() / "upstream" / c.pair / (c.run + ".json")));
    all.frame_values += d.frame_values;
    all.frame_differing += d.frame_differing;
    all.pooled_values += d.pooled_values;
    all.pooled_differing += d.pooled_differing;
    all.max_abs = std::max(all.max_abs, d.max_abs);
    all.max_ulps = std::max(all.max_ulps, d.max_ulps);
  }
  std::printf("[ distance ] float_ansnr: %zu of %zu frame values and %zu of %zu pooled values differ from upstream "
              "(max %.3g, %lld ulp)\n",
              all.frame_differing, all.frame_values, all.pooled_differing, all.pooled_values, all.max_abs,
              static_cast<long long>(all.max_ulps));
  EXPECT_EQ(all.frame_values, 174u);
  EXPECT_EQ(all.frame_differing, 1u);
  EXPECT_EQ(all.pooled_values, 144u);
  EXPECT_EQ(all.pooled_differing, 0u);
  EXPECT_LE(all.max_abs, 1.8e-15);
  EXPECT_EQ(all.max_ulps, 1);
}

TEST(FloatAnsnrThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"c01_176x144_8b_420", "c02_175x97_8b_420", "c04_160x90_12b_444", "c07_64x48_16b_420",
                           "s01_576x324_8b_420", "flat_64x64_8b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"float_ansnr"});
  }
}

// ---- pictures and upstream's loops ----------------------------------------------

struct Picture {
  VideoFormat fmt;
  std::vector<std::uint8_t> bytes;
  std::ptrdiff_t stride = 0;
  PictureView view() const {
    PictureView v;
    v.format = fmt;
    v.data[0] = bytes.data();
    v.stride[0] = stride;
    return v;
  }
  unsigned at(unsigned x, unsigned y) const {
    const std::uint8_t* p = bytes.data() + static_cast<std::ptrdiff_t>(y) * stride;
    return fmt.bitdepth == 8 ? p[x] : static_cast<unsigned>(p[2 * x] | (p[2 * x + 1] << 8));
  }
};

// A luma plane (stride padded by 3 samples of 0xA5 bytes) filled by fn(x, y).
template <class Fn>
Picture make_picture(unsigned w, unsigned h, unsigned bpc, Fn fn) {
  Picture p;
  p.fmt = VideoFormat{w, h, PixelFormat::yuv444, bpc};
  const unsigned bps = bpc > 8 ? 2 : 1;
  p.stride = static_cast<std::ptrdiff_t>((w + 3) * bps);
  p.bytes.assign(static_cast<std::size_t>(p.stride) * h, 0xA5);
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      const unsigned v = fn(x, y);
      std::uint8_t* at = p.bytes.data() + static_cast<std::ptrdiff_t>(y) * p.stride + x * bps;
      if (bps == 1) at[0] = static_cast<std::uint8_t>(v);
      else {
        at[0] = static_cast<std::uint8_t>(v & 0xff);
        at[1] = static_cast<std::uint8_t>(v >> 8);
      }
    }
  return p;
}

// Upstream's tables, written here: ansnr_tools.c's float taps (double
// quotients rounded to float) and float_ansnr.c's picture_copy divisor.
const int kRefNum[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
const int kDisNum[25] = {2, 7, 12, 7, 2, 7, 31, 52, 31, 7, 12, 52, 127, 52, 12, 7, 31, 52, 31, 7, 2, 7, 12, 7, 2};
std::vector<float> upstream_ref_taps() {
  std::vector<float> t;
  for (int n : kRefNum) t.push_back(static_cast<float>(n / 16.0));
  return t;
}
std::vector<float> upstream_dis_taps() {
  std::vector<float> t;
  for (int n : kDisNum) t.push_back(static_cast<float>(n / 571.0));
  return t;
}
float upstream_scaler(unsigned bpc) { return bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : bpc == 16 ? 256.0f : 1.0f; }

// picture_copy(..., offset -128): 8-bit (float)s + offset, else
// (float)s / scaler + offset.
std::vector<float> upstream_copy(const Picture& p) {
  const unsigned w = p.fmt.width, h = p.fmt.height;
  std::vector<float> out(static_cast<std::size_t>(w) * h);
  const int offset = -128;
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x)
      out[static_cast<std::size_t>(y) * w + x] = p.fmt.bitdepth == 8
                                                     ? static_cast<float>(p.at(x, y)) + offset
                                                     : static_cast<float>(p.at(x, y)) / upstream_scaler(p.fmt.bitdepth) + offset;
  return out;
}

// ansnr_filter2d_s as upstream writes it (mirror: -k below 0, 2n - k - 1 at
// or above n).
std::vector<float> upstream_filter(const std::vector<float>& f, const std::vector<float>& src, int w, int h,
                                   int fwidth) {
  std::vector<float> dst(src.size());
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      float accum = 0;
      for (int fi = 0; fi < fwidth; ++fi) {
        float accum_inner = 0;
        for (int fj = 0; fj < fwidth; ++fj) {
          const float fcoeff = f[static_cast<std::size_t>(fi * fwidth + fj)];
          int ii = i - fwidth / 2 + fi;
          int jj = j - fwidth / 2 + fj;
          if (ii < 0) ii = -ii;
          else if (ii >= h) ii = 2 * h - ii - 1;
          if (jj < 0) jj = -jj;
          else if (jj >= w) jj = 2 * w - jj - 1;
          const float imgcoeff = src[static_cast<std::size_t>(ii * w + jj)];
          accum_inner += fcoeff * imgcoeff;
        }
        accum += accum_inner;
      }
      dst[static_cast<std::size_t>(i * w + j)] = accum;
    }
  return dst;
}

// compute_ansnr up to ansnr_mse_s's float signal and noise sums.
float_ansnr::RowSums upstream_sums(const Picture& ref, const Picture& dis) {
  const int w = static_cast<int>(ref.fmt.width), h = static_cast<int>(ref.fmt.height);
  const auto rf = upstream_filter(upstream_ref_taps(), upstream_copy(ref), w, h, 3);
  const auto df = upstream_filter(upstream_dis_taps(), upstream_copy(dis), w, h, 5);
  float sig_accum = 0, noise_accum = 0;
  for (int i = 0; i < h; ++i) {
    float sig_inner = 0, noise_inner = 0;
    for (int j = 0; j < w; ++j) {
      const float r = rf[static_cast<std::size_t>(i * w + j)], d = df[static_cast<std::size_t>(i * w + j)];
      sig_inner += r * r;
      noise_inner += (r - d) * (r - d);
    }
    sig_accum += sig_inner;
    noise_accum += noise_inner;
  }
  return {sig_accum, noise_accum};
}

TEST(FloatAnsnrTables, TapsAndSampleValuesAreUpstreams) {
  float_ansnr::Config c;
  ASSERT_NO_THROW(float_ansnr::init(c, VideoFormat{3, 3, PixelFormat::yuv420, 8}));
  const auto ref = upstream_ref_taps(), dis = upstream_dis_taps();
  for (std::size_t k = 0; k < ref.size(); ++k) EXPECT_TRUE(same_bits(c.ref_taps[k], ref[k])) << "ref tap " << k;
  for (std::size_t k = 0; k < dis.size(); ++k) EXPECT_TRUE(same_bits(c.dis_taps[k], dis[k])) << "dis tap " << k;
  // float_ansnr.c's init table.
  const struct {
    unsigned bpc;
    double peak, psnr_max;
  } want[] = {{8, 255.0, 60.0}, {10, 255.75, 72.0}, {12, 255.9375, 84.0}, {16, 255.99609375, 108.0}};
  for (const auto& k : want) {
    ASSERT_NO_THROW(float_ansnr::init(c, VideoFormat{8, 8, PixelFormat::yuv420, k.bpc}));
    EXPECT_EQ(c.k.peak, k.peak) << k.bpc;
    EXPECT_EQ(c.k.psnr_max, k.psnr_max) << k.bpc;
    EXPECT_EQ(c.k.scaler, upstream_scaler(k.bpc)) << k.bpc;
    for (unsigned s : {0u, 1u, 127u, 128u, 129u, (1u << k.bpc) / 2, (1u << k.bpc) - 1}) {
      const float want_v = k.bpc == 8 ? static_cast<float>(s) + -128 : static_cast<float>(s) / upstream_scaler(k.bpc) + -128;
      EXPECT_TRUE(same_bits(float_ansnr::sample_value(static_cast<std::uint16_t>(s), c.k.scaler), want_v))
          << k.bpc << "-bit sample " << s;
    }
  }
  // The border: upstream's reflection for every index a 5x5 filter reads.
  for (int n = 3; n <= 9; ++n)
    for (int k = -2; k <= n + 1; ++k)
      EXPECT_EQ(float_ansnr::mirror(k, n), k < 0 ? -k : (k >= n ? 2 * n - k - 1 : k)) << k << " of " << n;
}

// Random sample planes of a bit depth: kind 0 uniform, 1 extremes (0 and
// max), 2 mostly the zero sample (v = +0) with a few others, 3 blocks.
unsigned sample_of(int kind, unsigned bpc, unsigned x, unsigned y, std::mt19937& rng) {
  const unsigned maxv = (1u << bpc) - 1, zero = 128u << (bpc - 8);
  switch (kind) {
    case 0: return rng() % (maxv + 1);
    case 1: return rng() % 2 ? maxv : 0u;
    case 2: return rng() % 7 == 0 ? rng() % (maxv + 1) : zero;
    default: return (x / 3 + y / 2) % 2 ? maxv - maxv / 8 : maxv / 16;
  }
}

const std::pair<int, int> kSizes[] = {{3, 3}, {4, 5}, {5, 4}, {3, 4}, {4, 3}, {3, 11}, {11, 3},
                                      {5, 5}, {6, 7}, {17, 9}, {64, 33}, {175, 97}};

// The device's per-sample filter_at (unpadded plane, mirrors itself) against
// the CPU's filter_row (rows extended by two mirrored samples each side) at
// every sample, both kernels, bit for bit.
TEST(FloatAnsnrFilter, PerSampleEqualsRowForm) {
  std::mt19937 rng(5);
  float_ansnr::Config c;
  std::size_t samples = 0, planes = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (auto [w, h] : kSizes)
      for (int kind = 0; kind < 4; ++kind) {
        ASSERT_NO_THROW(float_ansnr::init(c, VideoFormat{static_cast<unsigned>(w), static_cast<unsigned>(h),
                                                         PixelFormat::yuv444, bpc}));
        // The plane as floats, unpadded (the device's layout) and with a
        // padded stride whose extra samples are NaN (never read).
        std::vector<float> plane(static_cast<std::size_t>(w * h));
        const int pstride = w + 5;
        std::vector<float> padded(static_cast<std::size_t>(pstride * h), std::numeric_limits<float>::quiet_NaN());
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const auto s = static_cast<std::uint16_t>(
                sample_of(kind, bpc, static_cast<unsigned>(x), static_cast<unsigned>(y), rng));
            const float v = float_ansnr::sample_value(s, c.k.scaler);
            plane[static_cast<std::size_t>(y * w + x)] = v;
            padded[static_cast<std::size_t>(y * pstride + x)] = v;
          }
        // Extended rows: ext[k] = row[reflect(k - 2)], k in [0, w + 4).
        const int ew = w + 4;
        std::vector<float> ext(static_cast<std::size_t>(ew * h));
        for (int y = 0; y < h; ++y)
          for (int k = 0; k < ew; ++k) {
            int jj = k - 2;
            jj = jj < 0 ? -jj : (jj >= w ? 2 * w - jj - 1 : jj);
            ext[static_cast<std::size_t>(y * ew + k)] = plane[static_cast<std::size_t>(y * w + jj)];
          }
        auto row_ptr = [&](int ii) {
          ii = ii < 0 ? -ii : (ii >= h ? 2 * h - ii - 1 : ii);
          return ext.data() + static_cast<std::ptrdiff_t>(ii) * ew;
        };
        std::vector<float> out3(static_cast<std::size_t>(w)), out5(static_cast<std::size_t>(w));
        for (int i = 0; i < h; ++i) {
          const float* rows3[3] = {row_ptr(i - 1), row_ptr(i), row_ptr(i + 1)};
          const float* rows5[5] = {row_ptr(i - 2), row_ptr(i - 1), row_ptr(i), row_ptr(i + 1), row_ptr(i + 2)};
          float_ansnr::filter_row<3>(c.ref_taps, rows3, out3.data(), w);
          float_ansnr::filter_row<5>(c.dis_taps, rows5, out5.data(), w);
          for (int j = 0; j < w; ++j) {
            const float a3 = float_ansnr::filter_at<3>(c.ref_taps, plane.data(), w, w, h, i, j);
            const float a5 = float_ansnr::filter_at<5>(c.dis_taps, plane.data(), w, w, h, i, j);
            const float p3 = float_ansnr::filter_at<3>(c.ref_taps, padded.data(), pstride, w, h, i, j);
            const float p5 = float_ansnr::filter_at<5>(c.dis_taps, padded.data(), pstride, w, h, i, j);
            const std::string where =
                fmt::format("{}-bit {}x{} kind {} at row {} column {}", bpc, w, h, kind, i, j);
            ASSERT_EQ(std::bit_cast<std::uint32_t>(a3), std::bit_cast<std::uint32_t>(out3[static_cast<std::size_t>(j)]))
                << "3x3 " << where << ": filter_at " << a3 << " filter_row " << out3[static_cast<std::size_t>(j)];
            ASSERT_EQ(std::bit_cast<std::uint32_t>(a5), std::bit_cast<std::uint32_t>(out5[static_cast<std::size_t>(j)]))
                << "5x5 " << where << ": filter_at " << a5 << " filter_row " << out5[static_cast<std::size_t>(j)];
            ASSERT_EQ(std::bit_cast<std::uint32_t>(a3), std::bit_cast<std::uint32_t>(p3)) << "strided 3x3 " << where;
            ASSERT_EQ(std::bit_cast<std::uint32_t>(a5), std::bit_cast<std::uint32_t>(p5)) << "strided 5x5 " << where;
            ASSERT_TRUE(std::isfinite(a3) && std::isfinite(a5)) << where;
            samples += 1;
          }
        }
        ++planes;
      }
  EXPECT_EQ(planes, 4u * std::size(kSizes) * 4u);
  EXPECT_GT(samples, 100000u);
}

// CpuFrame::compute's float sums (its own border extension, row filters and
// row sums) against ansnr.c's loops written above, bit for bit.
TEST(FloatAnsnrFrame, SumsEqualUpstreamsLoops) {
  std::mt19937 rng(9);
  std::size_t pictures = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (auto [w, h] : kSizes)
      for (int kind = 0; kind < 4; ++kind) {
        const auto uw = static_cast<unsigned>(w), uh = static_cast<unsigned>(h);
        const Picture ref = make_picture(uw, uh, bpc, [&](unsigned x, unsigned y) { return sample_of(kind, bpc, x, y, rng); });
        const unsigned maxv = (1u << bpc) - 1;
        const Picture dis = make_picture(uw, uh, bpc, [&](unsigned x, unsigned y) {
          const unsigned v = ref.at(x, y);
          return kind == 1 ? maxv - v : (v + rng() % (maxv / 8 + 1)) % (maxv + 1);
        });
        float_ansnr::Config c;
        ASSERT_NO_THROW(float_ansnr::init(c, ref.fmt));
        float_ansnr::CpuFrame frame(c);
        const float_ansnr::RowSums got = frame.compute(ref.view(), dis.view());
        const float_ansnr::RowSums want = upstream_sums(ref, dis);
        const std::string where = fmt::format("{}-bit {}x{} kind {}", bpc, w, h, kind);
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got.sig), std::bit_cast<std::uint32_t>(want.sig))
            << where << ": signal " << got.sig << " vs upstream " << want.sig;
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got.noise), std::bit_cast<std::uint32_t>(want.noise))
            << where << ": noise " << got.noise << " vs upstream " << want.noise;
        // The worker keeps its buffers: a second frame gives the same sums.
        const float_ansnr::RowSums again = frame.compute(ref.view(), dis.view());
        EXPECT_EQ(std::bit_cast<std::uint32_t>(again.noise), std::bit_cast<std::uint32_t>(want.noise)) << where;
        ++pictures;
      }
  EXPECT_EQ(pictures, 4u * std::size(kSizes) * 4u);
}

// ---- errors ---------------------------------------------------------------------

// Runs float_ansnr over one synthetic frame pair of a format through the
// library's run API.
RunResult run_synthetic(const VideoFormat& fmt, SyntheticReader::SampleFn ref_fn, SyntheticReader::SampleFn dist_fn,
                        unsigned threads = 1, std::uint64_t frames = 1) {
  SyntheticReader ref("ref", fmt, frames, std::move(ref_fn)), dist("dist", fmt, frames, std::move(dist_fn));
  std::vector<FeatureRequest> req{parse_feature_request("float_ansnr")};
  RunOptions o;
  o.threads = threads;
  return run(ref, dist, std::move(req), o);
}

unsigned ramp(std::uint64_t f, unsigned, unsigned x, unsigned y) { return (x * 37 + y * 11 + f * 5) % 256u; }
unsigned ramp_dist(std::uint64_t f, unsigned p, unsigned x, unsigned y) { return (ramp(f, p, x, y) + x % 3 + y % 2) % 256u; }

std::string error_of(const VideoFormat& fmt) {
  try {
    run_synthetic(fmt, ramp, ramp_dist);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// ansnr_tools' single reflection reads outside a plane below 3x3 (upstream
// then reads out of bounds without a word): refused, naming the size.
TEST(FloatAnsnrSize, RefusesPlanesBelowThreeByThree) {
  for (auto [w, h] : {std::pair{2u, 8u}, {8u, 2u}, {2u, 2u}, {1u, 1u}, {2u, 3u}, {3u, 2u}, {1u, 64u}}) {
    for (PixelFormat pf : {PixelFormat::yuv420, PixelFormat::yuv444}) {
      const std::string m = error_of(VideoFormat{w, h, pf, 8});
      ASSERT_FALSE(m.empty()) << w << "x" << h << ": no error";
      EXPECT_NE(m.find("float_ansnr"), std::string::npos) << m;
      EXPECT_NE(m.find(fmt::format("the {}x{} luma plane is smaller than 3x3", w, h)), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
  // 3x3 is the least that runs (4:2:0: chroma 1x1 is not read), at every bit depth.
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (auto [w, h] : {std::pair{3u, 3u}, {4u, 5u}, {3u, 64u}, {64u, 3u}}) {
      const RunResult r = run_synthetic(VideoFormat{w, h, PixelFormat::yuv420, bpc}, ramp, ramp_dist);
      ASSERT_EQ(r.frames, 1u);
      const auto id = r.scores.find_metric("float_ansnr");
      ASSERT_TRUE(id);
      EXPECT_TRUE(std::isfinite(*r.scores.get(*id, 0))) << bpc << "-bit " << w << "x" << h;
    }
}

TEST(FloatAnsnrSize, CliGivesOneLineErrors) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("float_ansnr_test_{}", ::getpid());
  std::filesystem::create_directories(dir);
  struct Case {
    unsigned w, h;
    const char* pf;
    unsigned bpc;
  };
  for (const Case& c : {Case{2, 8, "420", 8}, Case{8, 2, "420", 8}, Case{2, 8, "444", 10}, Case{8, 2, "422", 16},
                        Case{2, 2, "444", 12}}) {
    // Two frames of the format's packed size.
    const VideoFormat fmt{c.w, c.h,
                          std::string(c.pf) == "420"   ? PixelFormat::yuv420
                          : std::string(c.pf) == "422" ? PixelFormat::yuv422
                                                       : PixelFormat::yuv444,
                          c.bpc};
    const auto ref = dir / "ref.yuv", dis = dir / "dis.yuv";
    for (const auto& path : {ref, dis}) {
      std::ofstream out(path, std::ios::binary);
      const std::string bytes(fmt.packed_frame_bytes() * 2, path == ref ? '\x40' : '\x20');
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const std::string args = fmt::format("-r '{}' -d '{}' -w {} -h {} -p {} -b {} -n -q --feature float_ansnr",
                                         ref.string(), dis.string(), c.w, c.h, c.pf, c.bpc);
    const CmdResult r = cli(args);
    SCOPED_TRACE(args);
    expect_one_line_error(r, "float_ansnr");
    expect_one_line_error(r, fmt::format("the {}x{} luma plane is smaller than 3x3", c.w, c.h));
  }
  std::filesystem::remove_all(dir);
}

// Upstream's init table has no other bit depth (-ENOMEM there). The raw and
// y4m readers refuse such depths first; the library's run API reaches init.
TEST(FloatAnsnrBitDepth, OthersAreRefused) {
  for (unsigned bpc : {9u, 11u, 14u}) {
    const std::string m = error_of(VideoFormat{16, 16, PixelFormat::yuv420, bpc});
    EXPECT_NE(m.find(fmt::format("float_ansnr: unsupported bit depth {}", bpc)), std::string::npos) << bpc << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    float_ansnr::Config c;
    EXPECT_THROW(float_ansnr::init(c, VideoFormat{16, 16, PixelFormat::yuv420, bpc}), Error) << bpc;
  }
}

// ---- the capped and the -inf scores -----------------------------------------------

// Identical flat pictures at the zero sample (v = +0 everywhere): signal and
// noise are 0, and noise == 0 scores psnr_max (float_ansnr.c's table: 60,
// 72, 84, 108), both outputs.
TEST(FloatAnsnrEdges, ZeroNoiseScoresPsnrMax) {
  const std::pair<unsigned, double> cap[] = {{8, 60.0}, {10, 72.0}, {12, 84.0}, {16, 108.0}};
  for (auto [bpc, psnr_max] : cap)
    for (auto [w, h] : {std::pair{3u, 3u}, {4u, 5u}, {64u, 48u}}) {
      const unsigned zero = 128u << (bpc - 8);
      auto flat = [zero](std::uint64_t, unsigned, unsigned, unsigned) { return zero; };
      const RunResult r = run_synthetic(VideoFormat{w, h, PixelFormat::yuv420, bpc}, flat, flat, 1, 2);
      const auto a = r.scores.find_metric("float_ansnr"), p = r.scores.find_metric("float_anpsnr");
      ASSERT_TRUE(a && p);
      for (std::uint64_t f = 0; f < r.frames; ++f) {
        EXPECT_TRUE(same_bits(*r.scores.get(*a, f), psnr_max)) << bpc << "-bit " << w << "x" << h << " frame " << f
                                                                << ": " << *r.scores.get(*a, f);
        EXPECT_TRUE(same_bits(*r.scores.get(*p, f), psnr_max)) << bpc << "-bit " << w << "x" << h << " frame " << f
                                                                << ": " << *r.scores.get(*p, f);
      }
    }
}

// A flat reference at the zero sample against any other picture: signal 0,
// noise > 0, float_ansnr = 10 log10(0 / noise) = -inf (null in libvmaf's
// JSON, as the flat pair's golden has it); float_anpsnr stays finite.
TEST(FloatAnsnrEdges, FlatReferenceScoresMinusInfinity) {
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const unsigned zero = 128u << (bpc - 8), maxv = (1u << bpc) - 1;
    auto flat = [zero](std::uint64_t, unsigned, unsigned, unsigned) { return zero; };
    auto other = [zero, maxv](std::uint64_t f, unsigned, unsigned x, unsigned y) {
      return (x + y + f) % 3 == 0 ? (zero + 1 + static_cast<unsigned>(f)) % (maxv + 1) : zero;
    };
    const RunResult r = run_synthetic(VideoFormat{5, 4, PixelFormat::yuv444, bpc}, flat, other, 1, 2);
    const auto a = r.scores.find_metric("float_ansnr"), p = r.scores.find_metric("float_anpsnr");
    ASSERT_TRUE(a && p);
    for (std::uint64_t f = 0; f < r.frames; ++f) {
      EXPECT_TRUE(same_bits(*r.scores.get(*a, f), -INFINITY)) << bpc << "-bit frame " << f << ": " << *r.scores.get(*a, f);
      EXPECT_TRUE(std::isfinite(*r.scores.get(*p, f))) << bpc << "-bit frame " << f;
    }
  }
  // The flat fixture (luma 128 against 129): -inf on every frame, and the
  // CLI writes null there.
  const auto pair = fixture_pair("flat_64x64_8b_420");
  ASSERT_TRUE(pair);
  const RunResult r = run_fixture(*pair, {"float_ansnr"});
  const auto a = r.scores.find_metric("float_ansnr");
  ASSERT_TRUE(a);
  ASSERT_EQ(r.frames, 3u);
  for (std::uint64_t f = 0; f < r.frames; ++f)
    EXPECT_TRUE(same_bits(*r.scores.get(*a, f), -INFINITY)) << "frame " << f << ": " << *r.scores.get(*a, f);
  const auto json = std::filesystem::temp_directory_path() / fmt::format("float_ansnr_flat_{}.json", ::getpid());
  const CmdResult c = cli(fixture_args("flat_64x64_8b_420") + " -q --json --feature float_ansnr -o '" + json.string() + "'");
  EXPECT_EQ(c.exit_code, 0) << c.err;
  std::ifstream in(json);
  std::stringstream ss;
  ss << in.rdbuf();
  std::filesystem::remove(json);
  EXPECT_NE(ss.str().find("\"float_ansnr\": null"), std::string::npos) << ss.str();
  EXPECT_EQ(ss.str().find("inf"), std::string::npos) << ss.str();
}

// Identical pictures that are not flat: the two filters differ (3x3 against
// 5x5), so noise > 0 and float_ansnr is finite and below the cap (the
// identical pair's golden: 28.56 on frame 0).
TEST(FloatAnsnrEdges, IdenticalTexturedPicturesAreNotCapped) {
  const RunResult r = run_synthetic(VideoFormat{33, 17, PixelFormat::yuv420, 8}, ramp, ramp, 3, 4);
  const auto a = r.scores.find_metric("float_ansnr");
  ASSERT_TRUE(a);
  for (std::uint64_t f = 0; f < r.frames; ++f) {
    EXPECT_TRUE(std::isfinite(*r.scores.get(*a, f))) << f;
    EXPECT_LT(*r.scores.get(*a, f), 60.0) << f;
  }
}

}  // namespace
}  // namespace exactvmaf::test
