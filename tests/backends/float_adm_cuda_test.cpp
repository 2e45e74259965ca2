// Float ADM on the CUDA backend against the CPU, bit for bit: every golden
// option set on every fixture pair with 1 and 4 threads (and against R's
// golden numbers), synthetic frames of 8 to 16 bits at odd sizes from the
// smallest plane (17x17) to 1920x1080, every option on synthetic frames
// (p-norms other than 3 use the device's powf fast path), graphs off, and
// float_adm with integer adm and motion in one graph. A test that needs a
// GPU and finds none skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "backends/cuda/cuda_feature.hpp"
#include "exactvmaf/cuda.hpp"
#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

// ---- every golden option set on every fixture pair ---------------------------

class CudaFloatAdmGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaFloatAdmGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const auto& c = GetParam();
  const auto pair = fixture_pair(c.pair);
  ASSERT_TRUE(pair) << c.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = float_adm_golden_runs().at(c.run);
  const RunResult cpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cpu, 1));
  // Upstream's aim is uninitialised where every denominator is 0 (the flat
  // pair without noise floor); there only cuda == cpu is checked.
  const bool r_comparable = !(c.pair.rfind("flat_", 0) == 0 && c.run == "float_adm_nw_0");
  const auto r = read_json(golden_dir() / "r" / c.pair / (c.run + ".json"));
  for (unsigned threads : {1u, 4u}) {
    const RunResult gpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cuda, threads));
    EXPECT_EQ(gpu.backend, Backend::cuda);
    EXPECT_GT(expect_same_bits(cpu, gpu, fmt::format("{}/{} threads {}", c.pair, c.run, threads)), 0u);
    if (!r_comparable) continue;
    const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
    EXPECT_GT(vs_r.values, 0u);
    EXPECT_EQ(vs_r.differing, 0u) << "threads " << threads << ": " << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaFloatAdmGolden,
                         ::testing::ValuesIn(golden_cases_for(float_adm_golden_runs())),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaFloatAdmGolden);

TEST(CudaFloatAdmGoldenSet, EveryPairHasEveryRun) {
  EXPECT_EQ(golden_cases_for(float_adm_golden_runs()).size(),
            fixture_pairs().size() * float_adm_golden_runs().size());
}

// ---- the extractor offers a CUDA worker exactly in CUDA builds (every build) --

TEST(CudaFloatAdm, WorkerExistsInCudaBuilds) {
  for (const char* f : {"float_adm", "float_adm=debug=true:adm_skip_scale0=true:adm_p_norm=2.5"}) {
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

// kind 0: ramps plus noise against a blurred, noisier copy; 1: full-range
// noise against its inverse; 2: 0/max extremes with a quarter flipped; 3:
// near-flat frames (coefficients near zero: the decouple's eps); 4: the
// distorted frame a gained copy of the reference (the gain limit).
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

TEST(CudaFloatAdm, RandomFramesEveryBitDepthOddSizes) {
  REQUIRE_CUDA_DEVICE();
  struct Size {
    unsigned w, h;
  };
  // 17x17: the smallest plane (2x2 bands at scale 3); 257 and 263 wider than
  // two kernel tiles; 35x301 tall with odd sizes at every scale.
  const Size sizes[] = {{17, 17}, {35, 301}, {257, 37}, {263, 150}, {97, 65}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& s : sizes)
      for (int kind : {0, 1, 2, 3, 4})
        expect_cuda_equals_cpu({s.w, s.h, PixelFormat::yuv420, bpc}, kind, "float_adm=debug=true");
}

TEST(CudaFloatAdm, EveryOptionOnRandomFrames) {
  REQUIRE_CUDA_DEVICE();
  const char* features[] = {
      "float_adm",
      "float_adm=debug=true:adm_enhn_gain_limit=1.0",
      "float_adm=debug=true:adm_enhn_gain_limit=1.2",
      "float_adm=debug=true:adm_enhn_gain_limit=1.1",
      "float_adm=debug=true:adm_skip_scale0=true:adm_skip_aim_scale=1",
      "float_adm=debug=true:adm_noise_weight=0:adm_min_val=0.3:adm_dlm_weight=0.9",
      "float_adm=debug=true:adm_noise_weight=2.5:adm_adm3_apply_hm=true",
      "float_adm=debug=true:adm_p_norm=2",
      "float_adm=debug=true:adm_p_norm=2.5",
      "float_adm=debug=true:adm_p_norm=4.5:adm_bypass_cm=1",
      "float_adm=debug=true:adm_p_norm=1",
      "float_adm=debug=true:adm_csf_mode=1:adm_csf_scale=0.5:adm_csf_diag_scale=2.0:adm_norm_view_dist=4.5",
      "float_adm=debug=true:adm_csf_mode=2:adm_norm_view_dist=5.0:adm_ref_display_height=720",
      "float_adm=debug=true:adm_csf_mode=7:adm_norm_view_dist=1.5:adm_ref_display_height=2160",
      "float_adm=debug=true:adm_f1s0=0.3:adm_f2s1=2.25:adm_f1s3=0",
  };
  for (const char* f : features)
    for (unsigned bpc : {8u, 10u, 16u})
      for (int kind : {0, 1, 3, 4}) expect_cuda_equals_cpu({61, 45, PixelFormat::yuv444, bpc}, kind, f);
}

// Flat frames with no noise floor: the denominator vanishes (adm 1, aim 0).
TEST(CudaFloatAdm, FlatFramesWithoutNoiseFloor) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{65, 40, PixelFormat::yuv420, 8};
  SyntheticReader ref("ref", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  SyntheticReader dist("dist", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  SyntheticReader ref2("ref", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  SyntheticReader dist2("dist", fmt, 2, [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; });
  RunOptions cpu_opts, gpu_opts;
  gpu_opts.backend = Backend::cuda;
  const RunResult cpu = run(ref, dist, {parse_feature_request("float_adm=debug=true:adm_noise_weight=0")}, cpu_opts);
  const RunResult gpu = run(ref2, dist2, {parse_feature_request("float_adm=debug=true:adm_noise_weight=0")}, gpu_opts);
  EXPECT_GT(expect_same_bits(cpu, gpu, "flat"), 0u);
  const auto adm2 = cpu.scores.get(0, 0);
  const auto aim = cpu.scores.get(1, 0);
  ASSERT_TRUE(adm2 && aim);
  EXPECT_EQ(*adm2, 1.0);
  EXPECT_EQ(*aim, 0.0);
}

TEST(CudaFloatAdm, FullHdFrames) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u})
    expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, bpc}, 0, "float_adm=debug=true", 2);
  expect_cuda_equals_cpu({1921, 1079, PixelFormat::yuv420, 12}, 4, "float_adm=debug=true:adm_enhn_gain_limit=1.2", 2);
  expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, 8}, 1, "float_adm=debug=true:adm_p_norm=2.5", 2);
}

TEST(CudaFloatAdm, GraphsOffAndWithAdmAndMotionInOneGraph) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{200, 90, PixelFormat::yuv420, 10};
  const Content c{1023, fmt.width, 0};
  const std::vector<std::string> features = {"motion=debug=true", "adm=debug=true",
                                             "float_adm=debug=true:adm_enhn_gain_limit=1.2"};
  const RunResult cpu = run_synthetic(fmt, c, 5, features, Backend::cpu, 1);
  EXPECT_GT(expect_same_bits(cpu, run_synthetic(fmt, c, 5, features, Backend::cuda, 3, true), "graphs on"), 0u);
  EXPECT_GT(expect_same_bits(cpu, run_synthetic(fmt, c, 5, features, Backend::cuda, 3, false), "graphs off"), 0u);
  for (const auto& pair : fixture_pairs()) {
    RunOptions cpu_opts, direct;
    cpu_opts.threads = 1;
    direct.backend = Backend::cuda;
    direct.cuda_graphs = false;
    direct.threads = 2;
    expect_same_bits(run_fixture(pair, {"float_adm=debug=true"}, cpu_opts),
                     run_fixture(pair, {"float_adm=debug=true"}, direct), pair.name + " without graphs");
  }
}

}  // namespace
}  // namespace exactvmaf::test
