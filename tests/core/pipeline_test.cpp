// The frame pipeline: order, history, subsample, frame counts, flat memory,
// errors, and the floating-point environment of worker threads.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cfenv>
#include <thread>

#include <xmmintrin.h>

#include "core/pipeline.hpp"
#include "numeric/fpenv.hpp"
#include "support/fixtures.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

VideoFormat small_format(unsigned bpc = 8) {
  VideoFormat f;
  f.width = 33;
  f.height = 17;
  f.pix_fmt = PixelFormat::yuv420;
  f.bitdepth = bpc;
  return f;
}

// Frame i has luma (i * 7 + x + y) mod 256.
unsigned ramp(std::uint64_t i, unsigned p, unsigned x, unsigned y) {
  return p ? 128u : static_cast<unsigned>((i * 7 + x + y) % 256);
}

// A probe feature: reports the frame's first luma sample, the previous
// frames' first samples (history 2), whether the worker computes in the
// reference FP environment, and a product that flushes to zero under FTZ.
class ProbeWorker final : public FeatureWorker {
 public:
  void extract(const FrameInput& in, FrameOutput& out) override {
    out.set(0, in.ref.data[0][0]);
    out.set(1, in.prev_ref.size() > 0 ? in.prev_ref[0].data[0][0] : -1.0);
    out.set(2, in.prev_ref.size() > 1 ? in.prev_ref[1].data[0][0] : -1.0);
    out.set(3, fpenv_is_reference() ? 1.0 : 0.0);
    volatile double tiny = 0x1p-1060, half = 0.5;
    out.set(4, tiny * half);  // 2^-1061: a subnormal, 0 under FTZ
  }
};
class ProbeExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat&) override {
    return {"probe_cur", "probe_prev1", "probe_prev2", "probe_fpenv", "probe_subnormal"};
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<ProbeWorker>(); }
  unsigned history() const override { return 2; }
  void flush(ScoreTable& t) override { t.set_aggregate("probe_flushed", 1.0); }
};

const FeatureInfo& probe_info() {
  static const FeatureInfo info = [] {
    FeatureInfo f;
    f.name = "probe";
    f.create = [](const OptionValues&) { return std::make_unique<ProbeExtractor>(); };
    return f;
  }();
  return info;
}

std::vector<FeatureRequest> probe_request() { return {FeatureRequest{&probe_info(), OptionValues(&probe_info().options)}}; }

TEST(Pipeline, HistoryOrderAndFlushForEveryThreadCount) {
  for (unsigned threads : {1u, 2u, 5u, 16u}) {
    SyntheticReader ref("ref", small_format(), 40, ramp), dist("dist", small_format(), 40, ramp);
    RunOptions o;
    o.threads = threads;
    const RunResult r = run(ref, dist, probe_request(), o);
    ASSERT_EQ(r.frames, 40u);
    for (std::uint64_t i = 0; i < 40; ++i) {
      EXPECT_EQ(*r.scores.get(0, i), ramp(i, 0, 0, 0));
      EXPECT_EQ(*r.scores.get(1, i), i >= 1 ? ramp(i - 1, 0, 0, 0) : -1.0) << i;
      EXPECT_EQ(*r.scores.get(2, i), i >= 2 ? ramp(i - 2, 0, 0, 0) : -1.0) << i;
    }
    ASSERT_EQ(r.scores.aggregates().size(), 1u);
  }
}

TEST(Pipeline, WorkersComputeInTheReferenceFpEnvironmentWhateverTheCallerSet) {
  const FpEnvState caller = fpenv_save();
  _mm_setcsr(_mm_getcsr() | (1u << 15) | (1u << 6));  // caller sets FTZ and DAZ
  std::fesetround(FE_UPWARD);
  const FpEnvState with_ftz = fpenv_save();
  SyntheticReader ref("ref", small_format(), 5, ramp), dist("dist", small_format(), 5, ramp);
  RunOptions o;
  o.threads = 3;
  const RunResult r = run(ref, dist, probe_request(), o);
  const FpEnvState after = fpenv_save();
  fpenv_restore(caller);
  EXPECT_EQ(after.control, with_ftz.control) << "caller's MXCSR not restored";
  EXPECT_EQ(after.rounding, with_ftz.rounding) << "caller's rounding mode not restored";
  for (std::uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(*r.scores.get(3, i), 1.0);
    EXPECT_EQ(*r.scores.get(4, i), 0x1p-1061);
  }
}

// Every entry point computes in R's environment: reports (printf rounds in
// the current mode), pooling and option parsing give the same bits and bytes
// whatever rounding mode and FTZ/DAZ the caller set.
TEST(FpEnvGuard, EntryPointsIgnoreTheCallersRoundingModeAndFtz) {
  SyntheticReader ref("ref", small_format(), 6, ramp), dist("dist", small_format(), 6, [](auto i, auto p, auto x, auto y) {
    return ramp(i, p, x, y) ^ 3u;
  });
  const RunResult r = run(ref, dist, {parse_feature_request("psnr=enable_mse=true:enable_apsnr=true")}, {});
  OutputMeta meta;
  meta.version = "test";
  auto outputs = [&] {
    std::string all;
    for (auto f : {OutputFormat::xml, OutputFormat::json, OutputFormat::csv})
      for (const char* p : {"legacy", "max", "3"}) all += report_to_string(f, r, meta, NumberFormat::parse(p));
    all += format_number(2.0 / 3.0, NumberFormat::parse("legacy"), OutputFormat::json);
    const double mean = *r.scores.pooled(0, PoolMethod::harmonic_mean, 0, 5, 1);
    const double parsed = parse_feature_request("psnr=min_sse=0.1").options.get_real("min_sse");
    all += std::to_string(std::bit_cast<std::uint64_t>(mean)) + " " + std::to_string(std::bit_cast<std::uint64_t>(parsed));
    return all;
  };
  const std::string reference = outputs();
  const FpEnvState caller = fpenv_save();
  for (int mode : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    std::fesetround(mode);
    _mm_setcsr(_mm_getcsr() | (1u << 15) | (1u << 6));
    const std::string got = outputs();
    fpenv_restore(caller);
    EXPECT_EQ(got, reference) << "rounding mode " << mode;
  }
}

TEST(FpEnvGuard, SetsReferenceAndRestores) {
  const FpEnvState caller = fpenv_save();
  _mm_setcsr(_mm_getcsr() | (1u << 15));
  const unsigned before = _mm_getcsr();
  {
    FpEnvGuard g;
    EXPECT_TRUE(fpenv_is_reference());
    volatile double tiny = 0x1p-1060, half = 0.5;
    EXPECT_EQ(tiny * half, 0x1p-1061);
  }
  EXPECT_EQ(_mm_getcsr(), before);
  fpenv_restore(caller);
}

TEST(Pipeline, BuffersAreReusedSoMemoryStaysFlat) {
  SyntheticReader ref("ref", small_format(), 3000, ramp), dist("dist", small_format(), 3000, ramp);
  RunOptions o;
  o.threads = 4;
  const RunResult r = run(ref, dist, probe_request(), o);
  EXPECT_EQ(r.frames, 3000u);
  // 3000 frames read through a pool of window (threads + 2) + history (2)
  // + read-ahead (2) + 1 buffers per input.
  EXPECT_LE(ref.buffers_seen.size(), 6u + 2 + 2 + 1);
  EXPECT_LE(dist.buffers_seen.size(), 6u + 2 + 2 + 1);
}

TEST(Pipeline, ParallelReadersDeliverFramesInOrder) {
  for (unsigned threads : {4u, 8u, 16u}) {
    SyntheticReader ref("ref", small_format(), 300, ramp), dist("dist", small_format(), 300, ramp);
    ref.set_random_access(true);
    dist.set_random_access(true);
    RunOptions o;
    o.threads = threads;
    o.frame_skip_ref = 5;
    o.frame_skip_dist = 2;
    o.frame_cnt = 250;
    const RunResult r = run(ref, dist, probe_request(), o);
    ASSERT_EQ(r.frames, 250u);
    for (std::uint64_t i = 0; i < 250; ++i) {
      ASSERT_EQ(*r.scores.get(0, i), ramp(i + 5, 0, 0, 0)) << "threads " << threads << " frame " << i;
      ASSERT_EQ(*r.scores.get(1, i), i >= 1 ? ramp(i + 4, 0, 0, 0) : -1.0) << i;
    }
    EXPECT_TRUE(ref.buffers_seen.empty()) << "the sequential path was used";
  }
}

TEST(Pipeline, AParallelReadErrorReachesTheCaller) {
  SyntheticReader ref("ref.yuv", small_format(), 300, ramp), dist("dist.yuv", small_format(), 300, ramp);
  ref.set_random_access(true);
  dist.set_random_access(true);
  dist.fail_at = 137;
  RunOptions o;
  o.threads = 8;
  try {
    run(ref, dist, probe_request(), o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "dist.yuv: frame 137 is broken");
  }
}

TEST(Pipeline, ShorterInputStopsAndWarnsWithBothCounts) {
  for (bool known : {true, false}) {
    SyntheticReader ref("ref.yuv", small_format(), 7, ramp, known), dist("dist.yuv", small_format(), 5, ramp, known);
    std::vector<std::string> warnings;
    RunOptions o;
    o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
    const RunResult r = run(ref, dist, probe_request(), o);
    EXPECT_EQ(r.frames, 5u);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("\"dist.yuv\" ended after 5 frames"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("\"ref.yuv\" (7 frames)"), std::string::npos) << warnings[0];
  }
}

TEST(Pipeline, FrameCountSkipsAndSubsample) {
  SyntheticReader ref("ref", small_format(), 20, ramp), dist("dist", small_format(), 20, ramp);
  RunOptions o;
  o.frame_skip_ref = 3;
  o.frame_skip_dist = 1;
  o.frame_cnt = 6;
  o.subsample = 2;
  std::vector<std::string> warnings;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const RunResult r = run(ref, dist, probe_request(), o);
  EXPECT_EQ(r.frames, 6u);
  EXPECT_TRUE(warnings.empty());
  for (std::uint64_t i = 0; i < 6; ++i) {
    // probe is not an every-frame feature: subsample leaves odd frames out.
    ASSERT_EQ(r.scores.written(0, i), i % 2 == 0) << i;
    if (i % 2 == 0) {
      EXPECT_EQ(*r.scores.get(0, i), ramp(i + 3, 0, 0, 0));
    }
  }
}

TEST(Pipeline, EveryFrameFeaturesRunOnSubsampledFrames) {
  SyntheticReader ref("ref", small_format(), 6, ramp), dist("dist", small_format(), 6, [](auto i, auto p, auto x, auto y) {
    return ramp(i, p, x, y) ^ 1u;
  });
  RunOptions o;
  o.subsample = 3;
  const RunResult r = run(ref, dist, {parse_feature_request("psnr")}, o);
  for (std::uint64_t i = 0; i < 6; ++i) EXPECT_TRUE(r.scores.written(0, i)) << i;
}

TEST(Pipeline, RejectsMismatchedFormats) {
  VideoFormat other = small_format(10);
  SyntheticReader ref("a.yuv", small_format(), 3, ramp), dist("b.y4m", other, 3, ramp);
  try {
    run(ref, dist, probe_request(), {});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("a.yuv is 33x17 420 8-bit"), std::string::npos) << m;
    EXPECT_NE(m.find("b.y4m is 33x17 420 10-bit"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
}

class ThrowingWorker final : public FeatureWorker {
 public:
  void extract(const FrameInput& in, FrameOutput&) override {
    if (in.index == 17) throw Error("probe: frame 17 is bad");
  }
};
class ThrowingExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat&) override { return {"x"}; }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<ThrowingWorker>(); }
};

TEST(Pipeline, AWorkerErrorReachesTheCaller) {
  static FeatureInfo info;
  info.name = "throwing";
  info.create = [](const OptionValues&) { return std::make_unique<ThrowingExtractor>(); };
  SyntheticReader ref("ref", small_format(), 100, ramp), dist("dist", small_format(), 100, ramp);
  RunOptions o;
  o.threads = 4;
  EXPECT_THROW(run(ref, dist, {FeatureRequest{&info, OptionValues(&info.options)}}, o), Error);
}

class FailingReader final : public VideoReader {
 public:
  explicit FailingReader(VideoFormat f) { info_.format = f; }
  const VideoInfo& info() const override { return info_; }
  const std::string& path() const override { return path_; }
  bool read_frame(FrameBuffer&) override {
    if (n_++ < 3) return true;
    throw Error("broken.yuv: truncated frame 3");
  }
  bool skip_frame() override { return true; }
  std::uint64_t frames_read() const override { return n_; }

 private:
  VideoInfo info_;
  std::string path_ = "broken.yuv";
  std::uint64_t n_ = 0;
};

TEST(Pipeline, AReadErrorReachesTheCaller) {
  FailingReader ref(small_format());
  SyntheticReader dist("dist", small_format(), 100, ramp);
  try {
    run(ref, dist, probe_request(), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "broken.yuv: truncated frame 3");
  }
}

// ---- CPU threads while CUDA starts: the head path, with a stand-in start -----

// The probe, 2 ms a frame: slow enough that the head threads score frames
// before the stand-in start ends.
class SlowProbeExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat& f) override { return probe_.init(f); }
  std::unique_ptr<FeatureWorker> make_worker() override {
    class Slow final : public FeatureWorker {
     public:
      void extract(const FrameInput& in, FrameOutput& out) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        probe_.extract(in, out);
      }

     private:
      ProbeWorker probe_;
    };
    return std::make_unique<Slow>();
  }
  unsigned history() const override { return 2; }

 private:
  ProbeExtractor probe_;
};

std::vector<FeatureRequest> slow_probe_request() {
  static const FeatureInfo info = [] {
    FeatureInfo f;
    f.name = "slow_probe";
    f.create = [](const OptionValues&) { return std::make_unique<SlowProbeExtractor>(); };
    return f;
  }();
  return {FeatureRequest{&info, OptionValues(&info.options)}};
}

// Sets the stand-in for one test.
struct FakeCudaStartScope {
  explicit FakeCudaStartScope(pipeline::testing::FakeCudaStart f) { pipeline::testing::set_fake_cuda_start(f); }
  ~FakeCudaStartScope() { pipeline::testing::set_fake_cuda_start(std::nullopt); }
};

RunOptions head_options(Backend backend) {
  RunOptions o;
  o.backend = backend;
  o.gpus = {0};
  o.cpu_while_cuda_starts = true;
  o.threads = 3;
  return o;
}

void expect_probe_values(const RunResult& r, std::uint64_t frames) {
  ASSERT_EQ(r.frames, frames);
  for (std::uint64_t i = 0; i < frames; ++i) {
    ASSERT_EQ(*r.scores.get(0, i), ramp(i, 0, 0, 0)) << "frame " << i;
    ASSERT_EQ(*r.scores.get(1, i), i >= 1 ? ramp(i - 1, 0, 0, 0) : -1.0) << "frame " << i;
    ASSERT_EQ(*r.scores.get(2, i), i >= 2 ? ramp(i - 2, 0, 0, 0) : -1.0) << "frame " << i;
  }
}

TEST(PipelineHead, CpuThreadsScoreWhileTheStartRunsThenTheCpuWorkersTakeOver) {
  const FakeCudaStartScope fake({std::chrono::milliseconds(150), ""});
  SyntheticReader ref("ref", small_format(), 400, ramp), dist("dist", small_format(), 400, ramp);
  RunOptions o = head_options(Backend::automatic);
  o.threads = 2;  // at most 2 head threads: 400 frames take them 400 ms or more
  std::vector<std::string> warnings;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const RunResult r = run(ref, dist, slow_probe_request(), o);
  expect_probe_values(r, 400);
  EXPECT_EQ(r.backend, Backend::cpu);
  // The head scored the frames of the start's 150 ms, the workers the rest.
  EXPECT_GE(r.cpu_head_frames, 1u);
  EXPECT_LT(r.cpu_head_frames, 400u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("running on the cpu"), std::string::npos) << warnings[0];
}

TEST(PipelineHead, OffOrCpuBackendKeepsTheHeadOut) {
  const FakeCudaStartScope fake({std::chrono::milliseconds(50), ""});
  // The option off with auto; on with the cpu backend.
  for (const bool cpu_backend : {false, true}) {
    SyntheticReader ref("ref", small_format(), 20, ramp), dist("dist", small_format(), 20, ramp);
    RunOptions o = head_options(cpu_backend ? Backend::cpu : Backend::automatic);
    o.cpu_while_cuda_starts = cpu_backend;
    const RunResult r = run(ref, dist, slow_probe_request(), o);
    expect_probe_values(r, 20);
    EXPECT_EQ(r.cpu_head_frames, 0u) << (cpu_backend ? "cpu backend" : "option off");
  }
}

TEST(PipelineHead, AFailedStartUnderCudaIsTheRunsErrorEvenAfterTheHeadScoredEveryFrame) {
  for (const auto delay : {std::chrono::milliseconds(0), std::chrono::milliseconds(300)}) {
    const FakeCudaStartScope fake({delay, "--backend cuda: no CUDA device (a test's stand-in)"});
    SyntheticReader ref("ref", small_format(), 30, ramp), dist("dist", small_format(), 30, ramp);
    try {
      run(ref, dist, slow_probe_request(), head_options(Backend::cuda));
      FAIL() << "no error, delay " << delay.count() << " ms";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "--backend cuda: no CUDA device (a test's stand-in)");
    }
  }
}

TEST(PipelineHead, AReadErrorDuringTheHeadReachesTheCaller) {
  const FakeCudaStartScope fake({std::chrono::milliseconds(100), ""});
  FailingReader ref(small_format());
  SyntheticReader dist("dist", small_format(), 100, ramp);
  try {
    run(ref, dist, slow_probe_request(), head_options(Backend::automatic));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "broken.yuv: truncated frame 3");
  }
}

}  // namespace
}  // namespace exactvmaf::test
