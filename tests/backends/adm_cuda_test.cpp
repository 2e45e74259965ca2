// Integer ADM on the CUDA backend against the CPU, bit for bit: every golden
// option set on every fixture pair with 1 and 4 threads (and against R's
// golden numbers), synthetic frames of 8 to 16 bits at odd sizes from the
// smallest plane (33x33) to 1920x1080, every option on synthetic frames,
// graphs off, and adm with motion in one graph. A test that needs a GPU and
// finds none skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "backends/cuda/cuda_feature.hpp"
#include "exactvmaf/cuda.hpp"
#include "support/backend_parity.hpp"
#include "support/golden_runs.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

// ---- every golden option set on every fixture pair ---------------------------

class CudaAdmGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaAdmGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const auto& c = GetParam();
  const auto pair = fixture_pair(c.pair);
  ASSERT_TRUE(pair) << c.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = adm_golden_runs().at(c.run);
  const RunResult cpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cpu, 1));
  const auto r = read_json(golden_dir() / "r" / c.pair / (c.run + ".json"));
  for (unsigned threads : {1u, 4u}) {
    const RunResult gpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cuda, threads));
    EXPECT_EQ(gpu.backend, Backend::cuda);
    EXPECT_GT(expect_same_bits(cpu, gpu, fmt::format("{}/{} threads {}", c.pair, c.run, threads)), 0u);
    const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
    EXPECT_GT(vs_r.values, 0u);
    EXPECT_EQ(vs_r.differing, 0u) << "threads " << threads << ": " << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaAdmGolden, ::testing::ValuesIn(golden_cases_for(adm_golden_runs())),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaAdmGolden);

TEST(CudaAdmGoldenSet, IsPresent) {
  EXPECT_EQ(golden_cases_for(adm_golden_runs()).size(), fixture_pairs().size() * 8u);  // 8 option sets on each pair
}

// ---- the extractor offers a CUDA worker exactly in CUDA builds (every build) --

TEST(CudaAdm, WorkerExistsInCudaBuilds) {
  for (const char* f : {"adm", "adm=debug=true:adm_skip_scale0=true:adm_skip_aim=true"}) {
    const FeatureRequest req = parse_feature_request(f);
    auto extractor = req.info->create(req.options);
    extractor->init(VideoFormat{64, 48, PixelFormat::yuv420, 10});
    const bool has_worker = extractor->make_cuda_worker() != nullptr;  // makes no CUDA call
    EXPECT_EQ(has_worker, cuda_status().built) << f;
  }
}

// ---- synthetic frames ----------------------------------------------------------

std::uint32_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}

// kind 0: smooth ramps plus noise against a blurred, noisier copy (the
// angle test and the gain limit both ways); 1: full-range noise against its
// inverse (large negative products); 2: 0/max extremes with a quarter
// flipped (the largest coefficients, 16-bit wrap-around in the DWT); 3:
// near-flat frames (coefficients near zero, the decouple's o == 0 path);
// 4: the distorted frame a gained copy of the reference (k > 1, the
// enhancement-gain limit).
struct Content {
  unsigned maxv, width;
  int kind;
  unsigned ref(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const std::uint32_t n = mix((f << 40) ^ (std::uint64_t{p} << 36) ^ (std::uint64_t{y} << 18) ^ x);
    if (kind == 2) return (n & 1) ? maxv : 0u;
    if (kind == 1) return n & maxv;
    if (kind == 3) return maxv / 2 + (n % 3);
    return static_cast<unsigned>(((x * 7 + y * 13 + f * 29) * (maxv / 255) + (n & (maxv >> 3))) & maxv);
  }
  unsigned dist(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const unsigned v = ref(f, p, x, y);
    if (kind == 1) return maxv - v;
    if (kind == 2) return (mix(x * 131 + y + f) & 3) == 0 ? maxv - v : v;
    if (kind == 3) return v + (mix(x + 977 * y + f) % 5 == 0 ? 1u : 0u);
    if (kind == 4) {
      const unsigned mid = (maxv + 1) / 2;
      const long long g = static_cast<long long>(mid) + (static_cast<long long>(v) - mid) * 3 / 2;
      return static_cast<unsigned>(std::clamp<long long>(g, 0, maxv));
    }
    const std::uint32_t n = mix((f << 41) ^ (std::uint64_t{y} << 20) ^ x ^ 0x5bd1e995);
    const unsigned blur = (v + ref(f, p, x + 1 < width ? x + 1 : x, y)) / 2;
    const unsigned noisy = blur + (n % (maxv / 16 + 1));
    return noisy > maxv ? maxv : noisy;
  }
};

RunResult run_synthetic(const VideoFormat& fmt, const Content& c, std::uint64_t frames,
                        const std::vector<std::string>& features, Backend backend, unsigned threads,
                        bool graphs = true) {
  SyntheticReader ref("ref", fmt, frames, [c](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return c.ref(f, p, x, y);
  });
  SyntheticReader dist("dist", fmt, frames, [c](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return c.dist(f, p, x, y);
  });
  std::vector<FeatureRequest> req;
  for (const auto& f : features) req.push_back(parse_feature_request(f));
  RunOptions o;
  o.backend = backend;
  o.threads = threads;
  o.cuda_graphs = graphs;
  return run(ref, dist, std::move(req), o);
}

void expect_cuda_equals_cpu(const VideoFormat& fmt, int kind, const std::string& feature, std::uint64_t frames = 3) {
  const Content c{(1u << fmt.bitdepth) - 1, fmt.width, kind};
  const std::vector<std::string> features = {feature};
  const RunResult cpu = run_synthetic(fmt, c, frames, features, Backend::cpu, 1);
  const RunResult gpu = run_synthetic(fmt, c, frames, features, Backend::cuda, 2);
  const std::string what = fmt::format("{} kind {} {}", fmt.describe(), kind, feature);
  EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
  // Teeth: outside the near-flat content scale 1 (metric 4) of the first
  // frame is a real quotient, not the 1 of identical frames.
  const auto v = cpu.scores.get(4, 0);
  ASSERT_TRUE(v) << what;
  if (kind != 3) {
    EXPECT_NE(*v, 1.0) << what;
  }
}

TEST(CudaAdm, RandomFramesEveryBitDepthOddSizes) {
  REQUIRE_CUDA_DEVICE();
  struct Size {
    unsigned w, h;
  };
  // 33x33: the smallest plane (3x3 bands at scale 3); 257 and 263 make band
  // rows of one DWT tile plus a few samples (129, 132); 35x301 a tall plane
  // with odd sizes at every scale.
  const Size sizes[] = {{33, 33}, {35, 301}, {257, 37}, {263, 150}, {97, 65}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& s : sizes)
      for (int kind : {0, 1, 2, 3, 4}) expect_cuda_equals_cpu({s.w, s.h, PixelFormat::yuv420, bpc}, kind, "adm=debug=true");
}

TEST(CudaAdm, EveryOptionOnRandomFrames) {
  REQUIRE_CUDA_DEVICE();
  const char* features[] = {
      "adm",
      "adm=debug=true:adm_enhn_gain_limit=1.0",
      "adm=debug=true:adm_enhn_gain_limit=1.2",
      "adm=debug=true:adm_enhn_gain_limit=1.1",
      "adm=debug=true:adm_skip_aim=true",
      "adm=debug=true:adm_skip_scale0=true",
      "adm=debug=true:adm_skip_scale0=true:adm_skip_aim=true",
      "adm=debug=true:adm_noise_weight=0:adm_min_val=0.3:adm_dlm_weight=0.9",
      "adm=debug=true:adm_noise_weight=2.5",
      "adm=debug=true:adm_csf_mode=1",
      "adm=debug=true:adm_csf_mode=1:adm_csf_scale=0.5:adm_csf_diag_scale=2.0:adm_norm_view_dist=4.5",
      "adm=debug=true:adm_csf_mode=2:adm_norm_view_dist=5.0:adm_ref_display_height=720",
      "adm=debug=true:adm_csf_mode=3:adm_norm_view_dist=1.5:adm_ref_display_height=2160",
      "adm=debug=true:adm_csf_mode=0:adm_norm_view_dist=6.0:adm_ref_display_height=1080",
      "adm=debug=true:adm_csf_mode=0:adm_norm_view_dist=3.0:adm_ref_display_height=2160",
  };
  for (const char* f : features)
    for (unsigned bpc : {8u, 9u, 14u})
      for (int kind : {0, 1, 3, 4}) expect_cuda_equals_cpu({61, 45, PixelFormat::yuv444, bpc}, kind, f);
}

// Flat frames with no noise floor: the denominator vanishes (adm 1, aim 0).
TEST(CudaAdm, FlatFramesWithoutNoiseFloor) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{65, 40, PixelFormat::yuv420, 8};
  SyntheticReader ref("ref", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  SyntheticReader dist("dist", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  SyntheticReader ref2("ref", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  SyntheticReader dist2("dist", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  RunOptions cpu_opts, gpu_opts;
  gpu_opts.backend = Backend::cuda;
  const RunResult cpu = run(ref, dist, {parse_feature_request("adm=debug=true:adm_noise_weight=0")}, cpu_opts);
  const RunResult gpu = run(ref2, dist2, {parse_feature_request("adm=debug=true:adm_noise_weight=0")}, gpu_opts);
  EXPECT_GT(expect_same_bits(cpu, gpu, "flat"), 0u);
  const auto adm2 = cpu.scores.get(0, 0);
  ASSERT_TRUE(adm2);
  EXPECT_EQ(*adm2, 1.0);
}

// Frames several DWT tiles wide and many rows tall at every scale
// (1920x1080: 960 band samples at scale 0, 120 at scale 3).
TEST(CudaAdm, FullHdFrames) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u}) expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, bpc}, 0, "adm=debug=true", 2);
  expect_cuda_equals_cpu({1921, 1079, PixelFormat::yuv420, 12}, 4, "adm=debug=true:adm_enhn_gain_limit=1.2", 2);
}

TEST(CudaAdm, GraphsOffAndWithMotionInOneGraph) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{200, 90, PixelFormat::yuv420, 10};
  const Content c{1023, fmt.width, 0};
  const std::vector<std::string> features = {"motion=debug=true", "adm=debug=true:adm_enhn_gain_limit=1.2"};
  const RunResult cpu = run_synthetic(fmt, c, 5, features, Backend::cpu, 1);
  EXPECT_GT(expect_same_bits(cpu, run_synthetic(fmt, c, 5, features, Backend::cuda, 3, true), "graphs on"), 0u);
  EXPECT_GT(expect_same_bits(cpu, run_synthetic(fmt, c, 5, features, Backend::cuda, 3, false), "graphs off"), 0u);
  for (const auto& pair : fixture_pairs()) {
    RunOptions cpu_opts, direct;
    cpu_opts.threads = 1;
    direct.backend = Backend::cuda;
    direct.cuda_graphs = false;
    direct.threads = 2;
    expect_same_bits(run_fixture(pair, {"adm=debug=true"}, cpu_opts), run_fixture(pair, {"adm=debug=true"}, direct),
                     pair.name + " without graphs");
  }
}

}  // namespace
}  // namespace exactvmaf::test
