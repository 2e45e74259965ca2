// Integer VIF on the CUDA backend against the CPU, bit for bit: every golden
// option set on every fixture pair with 1 and 4 threads (and against R's
// golden numbers), random and extreme frames of 8 to 16 bits at odd sizes
// (the smallest plane, planes narrower and wider than one kernel tile),
// graphs off, and vif together with motion in one graph. A test that needs a
// GPU and finds none skips with "no CUDA device: <problem>".
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

std::vector<GoldenCase> vif_cases() { return golden_cases_for(vif_golden_runs()); }

// ---- every golden option set on every fixture pair ---------------------------

class CudaVifGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaVifGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const auto& c = GetParam();
  const auto pair = fixture_pair(c.pair);
  ASSERT_TRUE(pair) << c.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = vif_golden_runs().at(c.run);
  const RunResult cpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cpu, 1));
  const auto r = read_json(golden_dir() / "r" / c.pair / (c.run + ".json"));
  for (unsigned threads : {1u, 4u}) {
    const RunResult gpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cuda, threads));
    EXPECT_EQ(gpu.backend, Backend::cuda);
    EXPECT_GT(expect_same_bits(cpu, gpu, fmt::format("{}/{} threads {}", c.pair, c.run, threads)), 0u);
    const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
    EXPECT_EQ(vs_r.differing, 0u) << "threads " << threads << ": " << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaVifGolden, ::testing::ValuesIn(vif_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaVifGolden);

TEST(CudaVifGoldenSet, IsPresent) {
  EXPECT_EQ(vif_cases().size(), fixture_pairs().size() * 4u);  // 4 option sets on each pair
}

// ---- the extractor offers a CUDA worker exactly in CUDA builds (every build) --

TEST(CudaVif, WorkerExistsInCudaBuilds) {
  const FeatureRequest req = parse_feature_request("vif=debug=true");
  auto extractor = req.info->create(req.options);
  extractor->init(VideoFormat{64, 48, PixelFormat::yuv420, 10});
  const bool has_worker = extractor->make_cuda_worker() != nullptr;  // makes no CUDA call
  EXPECT_EQ(has_worker, cuda_status().built);
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

// kind 0: smooth content plus noise against a blurred, noisier copy (most
// pixels take the log branch); 1: full-range noise against its inverse
// (negative covariances); 2: 0/max extremes, a quarter flipped (the largest
// sums); 3: near-flat frames (mostly the non-log branch).
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

void expect_cuda_equals_cpu(const VideoFormat& fmt, int kind, const std::string& feature) {
  const Content c{(1u << fmt.bitdepth) - 1, fmt.width, kind};
  const std::vector<std::string> features = {feature};
  const RunResult cpu = run_synthetic(fmt, c, 3, features, Backend::cpu, 1);
  const RunResult gpu = run_synthetic(fmt, c, 3, features, Backend::cuda, 2);
  const std::string what = fmt::format("{} kind {} {}", fmt.describe(), kind, feature);
  EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
  // Teeth: outside the near-flat content, scale 1 of the first frame is a
  // real quotient (flat frames give exactly 1).
  const auto v = cpu.scores.get(1, 0);
  ASSERT_TRUE(v) << what;
  if (kind != 3) {
    EXPECT_NE(*v, 1.0) << what;
  }
}

TEST(CudaVif, RandomFramesEveryBitDepthOddSizes) {
  REQUIRE_CUDA_DEVICE();
  struct Size {
    unsigned w, h;
  };
  // 16x16: the smallest plane (2x2 at scale 3); 129 and 300 cross the
  // statistic kernel's 128-column tile, 9/17/77 rows its 8-row tile; 263x150
  // leaves odd widths at every scale.
  const Size sizes[] = {{16, 16}, {37, 23}, {129, 17}, {300, 77}, {263, 150}, {17, 9 * 16 + 1}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& s : sizes)
      for (int kind : {0, 1, 2, 3}) expect_cuda_equals_cpu({s.w, s.h, PixelFormat::yuv420, bpc}, kind, "vif=debug=true");
}

TEST(CudaVif, EveryOptionOnRandomFrames) {
  REQUIRE_CUDA_DEVICE();
  const char* features[] = {"vif", "vif=vif_enhn_gain_limit=1.0", "vif=vif_enhn_gain_limit=1.3:debug=true",
                            "vif=vif_skip_scale0=true", "vif=vif_enhn_gain_limit=1.5:vif_skip_scale0=true:debug=true"};
  for (const char* f : features)
    for (unsigned bpc : {8u, 9u, 14u})
      for (int kind : {0, 1}) expect_cuda_equals_cpu({61, 33, PixelFormat::yuv444, bpc}, kind, f);
}

// A frame several tiles wide and tall at every scale (1920x1080 has 15 x 135
// scale-0 tiles and 240x135 samples at scale 3).
TEST(CudaVif, FullHdFrames) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u}) expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, bpc}, 0, "vif=debug=true");
}

TEST(CudaVif, GraphsOffAndWithMotionInOneGraph) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{200, 90, PixelFormat::yuv420, 10};
  const Content c{1023, fmt.width, 0};
  const std::vector<std::string> features = {"motion=debug=true", "vif=debug=true:vif_enhn_gain_limit=1.2"};
  const RunResult cpu = run_synthetic(fmt, c, 5, features, Backend::cpu, 1);
  EXPECT_GT(expect_same_bits(cpu, run_synthetic(fmt, c, 5, features, Backend::cuda, 3, true), "graphs on"), 0u);
  EXPECT_GT(expect_same_bits(cpu, run_synthetic(fmt, c, 5, features, Backend::cuda, 3, false), "graphs off"), 0u);
  for (const auto& pair : fixture_pairs()) {
    RunOptions cpu_opts, direct;
    cpu_opts.threads = 1;
    direct.backend = Backend::cuda;
    direct.cuda_graphs = false;
    direct.threads = 2;
    expect_same_bits(run_fixture(pair, {"vif=debug=true"}, cpu_opts), run_fixture(pair, {"vif=debug=true"}, direct),
                     pair.name + " without graphs");
  }
}

}  // namespace
}  // namespace exactvmaf::test
