// The CUDA backend against the CPU, bit for bit: integer motion with every
// option set the goldens use on every fixture pair, 1 and 4 threads, graphs
// on and off, two runs at once in one process, synthetic frames wider than a
// kernel block and at the extremes of each bit depth; and the error paths
// (no device, bad --gpu, a feature without CUDA, --backend auto's fallback),
// which also run in CPU-only builds. A test that needs a GPU and finds none
// skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "support/backend_parity.hpp"
#include "support/golden_runs.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

// The motion golden runs without the one that adds psnr (no CUDA version;
// its fallback is tested below).
const std::map<std::string, GoldenRun>& cuda_motion_runs() {
  static const std::map<std::string, GoldenRun> runs = [] {
    auto r = motion_golden_runs();
    r.erase("motion_psnr");
    return r;
  }();
  return runs;
}

// ---- motion on every fixture pair and option set ----------------------------

std::vector<GoldenCase> motion_cases() { return golden_cases_for(cuda_motion_runs()); }

class CudaMotionGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaMotionGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_and_r(GetParam(), cuda_motion_runs().at(GetParam().run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaMotionGolden, ::testing::ValuesIn(motion_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaMotionGolden);

TEST(CudaMotionGoldenSet, IsPresent) {
  EXPECT_EQ(motion_cases().size(), fixture_pairs().size() * 8u + 4u);  // 8 option sets on each pair, 4 more on c01
}

TEST(CudaMotion, GraphsOffGiveSameBits) {
  REQUIRE_CUDA_DEVICE();
  for (const auto& pair : fixture_pairs()) {
    const std::vector<std::string> f = {"motion=motion_five_frame_window=true:debug=true"};
    RunOptions cpu_opts, direct;
    cpu_opts.threads = 1;
    direct.backend = Backend::cuda;
    direct.cuda_graphs = false;
    direct.threads = 2;
    expect_same_bits(run_fixture(pair, f, cpu_opts), run_fixture(pair, f, direct), pair.name + " without graphs");
  }
}

// Two run() calls at once on two threads (and so two sets of streams, graphs
// and pinned pools on one device), each compared with its CPU result.
TEST(CudaMotion, TwoConcurrentRunsInOneProcess) {
  REQUIRE_CUDA_DEVICE();
  const auto pairs = fixture_pairs();
  ASSERT_GE(pairs.size(), 2u);
  const std::vector<std::string> fa = {"motion=debug=true"};
  const std::vector<std::string> fb = {"motion=motion_five_frame_window=true:motion_moving_average=true"};
  for (std::size_t k = 0; k + 1 < pairs.size(); k += 2) {
    RunOptions cpu_opts;
    cpu_opts.threads = 1;
    const RunResult cpu_a = run_fixture(pairs[k], fa, cpu_opts);
    const RunResult cpu_b = run_fixture(pairs[k + 1], fb, cpu_opts);
    for (int repeat = 0; repeat < 3; ++repeat) {
      RunResult gpu_a, gpu_b;
      std::string error_a, error_b;
      auto go = [](const FixturePair& p, const std::vector<std::string>& f, unsigned threads, RunResult& out,
                   std::string& error) {
        try {
          RunOptions o;
          o.backend = Backend::cuda;
          o.threads = threads;
          out = run_fixture(p, f, o);
        } catch (const std::exception& e) {
          error = e.what();
        }
      };
      std::thread ta(go, std::cref(pairs[k]), std::cref(fa), 3u, std::ref(gpu_a), std::ref(error_a));
      std::thread tb(go, std::cref(pairs[k + 1]), std::cref(fb), 2u, std::ref(gpu_b), std::ref(error_b));
      ta.join();
      tb.join();
      ASSERT_EQ(error_a, "");
      ASSERT_EQ(error_b, "");
      expect_same_bits(cpu_a, gpu_a, pairs[k].name + " (concurrent)");
      expect_same_bits(cpu_b, gpu_b, pairs[k + 1].name + " (concurrent)");
    }
  }
}

// Frames wider than one 256-column block, odd sizes, the smallest plane, and
// samples at 0 and the maximum of each bit depth (the largest sums the
// kernels must hold).
TEST(CudaMotion, SyntheticSizesAndExtremes) {
  REQUIRE_CUDA_DEVICE();
  struct Shape {
    unsigned w, h, bpc;
  };
  const Shape shapes[] = {{3, 3, 8},     {5, 4, 8},      {255, 9, 8},   {256, 7, 8},  {257, 5, 10},
                          {513, 17, 12}, {1000, 11, 16}, {777, 33, 8},  {300, 3, 16}, {1030, 6, 14}};
  for (const auto& s : shapes) {
    const unsigned maxv = (1u << s.bpc) - 1;
    for (int mode = 0; mode < 3; ++mode) {
      // mode 0: random; 1: 0/max checkerboard flipping every frame; 2: near-equal frames
      auto fn = [=](std::uint64_t frame, unsigned plane, unsigned x, unsigned y) -> unsigned {
        std::uint64_t h = (frame * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{plane} << 48) ^ (std::uint64_t{y} << 24) ^ x;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 32;
        if (mode == 0) return static_cast<unsigned>(h % (maxv + 1));
        if (mode == 1) return ((x + y + frame) & 1) ? maxv : 0u;
        return static_cast<unsigned>((x * 7 + y * 3) % (maxv + 1) + (h % 3 == 0 && (x * 7 + y * 3) % (maxv + 1) < maxv));
      };
      const VideoFormat fmt{s.w, s.h, PixelFormat::yuv420, s.bpc};
      auto run_with = [&](Backend b, unsigned threads) {
        SyntheticReader ref("ref", fmt, 6, fn), dist("dist", fmt, 6, [](auto...) { return 0u; });
        std::vector<FeatureRequest> req{parse_feature_request("motion=debug=true")};
        RunOptions o;
        o.backend = b;
        o.threads = threads;
        return run(ref, dist, std::move(req), o);
      };
      const RunResult cpu = run_with(Backend::cpu, 1);
      const RunResult gpu = run_with(Backend::cuda, 3);
      EXPECT_GT(expect_same_bits(cpu, gpu, fmt::format("{}x{} {}-bit mode {}", s.w, s.h, s.bpc, mode)), 0u);
      // Not all zero: the comparison has teeth (near-equal 16-bit frames may blur to 0).
      if (mode < 2) {
        EXPECT_GT(*cpu.scores.get(0, 1), 0.) << s.w << "x" << s.h << " mode " << mode;
      }
    }
  }
}

// ---- the history ring ----------------------------------------------------------

// Previous frames copied on the device from the GPU's ring give the CPU's
// bits, with the ring off too. Counted: one thread finds every history frame
// in the ring (it published the frame before); four threads find some there
// and upload the rest; with the ring off all are uploaded.
TEST(CudaHistoryRing, ServesHistoryWithTheSameBits) {
  REQUIRE_CUDA_DEVICE();
  constexpr std::uint64_t kFrames = 24;
  for (const unsigned bpc : {8u, 10u}) {
    const VideoFormat fmt{320, 180, PixelFormat::yuv420, bpc};
    const unsigned maxv = (1u << bpc) - 1;
    auto content = [=](std::uint64_t frame, unsigned plane, unsigned x, unsigned y) -> unsigned {
      return static_cast<unsigned>((x * 3 + y * 5 + frame * frame * 7 + plane * 11 + (x * y * (frame + 1)) % 13) % (maxv + 1));
    };
    for (const char* feature : {"motion=debug=true", "motion=debug=true:motion_five_frame_window=true"}) {
      const unsigned history = std::string(feature).find("five") != std::string::npos ? 2u : 1u;
      std::uint64_t history_frames = 0;  // sum over frames of min(history, index)
      for (std::uint64_t i = 0; i < kFrames; ++i) history_frames += std::min<std::uint64_t>(history, i);
      auto run_with = [&](Backend b, unsigned threads, bool ring) {
        SyntheticReader ref("ref", fmt, kFrames, content),
            dist("dist", fmt, kFrames, [&](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
              return content(f, p, x, y) ^ ((x + y + f) % 5 == 0 ? 1u : 0u);
            });
        std::vector<FeatureRequest> req{parse_feature_request(feature), parse_feature_request("vif")};
        RunOptions o;
        o.backend = b;
        o.threads = threads;
        o.cuda_history_ring = ring;
        return run(ref, dist, std::move(req), o);
      };
      const RunResult cpu = run_with(Backend::cpu, 1, false);
      bool moved = false;  // the comparison has teeth: motion2 is not 0 on the last frame
      for (std::size_t id = 0; id < cpu.scores.metric_count(); ++id)
        if (cpu.scores.metric_name(id).find("motion2") != std::string::npos) {
          const auto v = cpu.scores.get(id, kFrames - 1);
          moved = moved || (v && *v > 0);
        }
      EXPECT_TRUE(moved) << feature;
      for (const unsigned threads : {1u, 4u})
        for (const bool ring : {true, false}) {
          const RunResult gpu = run_with(Backend::cuda, threads, ring);
          const std::string what = fmt::format("{} {}-bit, {} threads, ring {}", feature, bpc, threads, ring);
          EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u);
          EXPECT_EQ(gpu.cuda_history_on_device + gpu.cuda_history_uploaded, history_frames) << what;
          if (!ring) {
            EXPECT_EQ(gpu.cuda_history_on_device, 0u) << what;
          } else if (threads == 1) {
            EXPECT_EQ(gpu.cuda_history_on_device, history_frames) << what;
          } else {
            EXPECT_GT(gpu.cuda_history_on_device, 0u) << what;
          }
        }
    }
  }
}

// ---- page-locked frame storage kept between buffers ---------------------------

// A page-locked buffer's storage goes to the cache when the buffer goes, and
// the next page-locked buffer of the same size takes it, with its padding
// zeroed again; other sizes and pageable buffers do not.
TEST(CudaPinnedFrames, StorageIsKeptForTheNextBufferOfItsSize) {
  REQUIRE_CUDA_DEVICE();
  (void)release_pinned_frame_memory();
  const VideoFormat fmt{1000, 500, PixelFormat::yuv420, 8};  // rows padded: 1000 of 1024 bytes
  const HostMemory pinned{true, 0};
  ASSERT_GT(static_cast<std::size_t>(FrameBuffer(fmt).stride(0)), FrameBuffer(fmt).row_bytes(0));
  const std::uint8_t* first = nullptr;
  {
    FrameBuffer a(fmt, pinned);
    ASSERT_TRUE(a.pinned());
    first = a.plane(0);
    for (unsigned y = 0; y < fmt.height; ++y)
      std::memset(a.plane(0) + y * a.stride(0), 0xA5, static_cast<std::size_t>(a.stride(0)));
  }
  {
    FrameBuffer pageable(fmt);
    EXPECT_FALSE(pageable.pinned());
    EXPECT_NE(pageable.plane(0), first) << "a pageable buffer took page-locked storage";
    FrameBuffer other(VideoFormat{1000, 502, PixelFormat::yuv420, 8}, pinned);
    EXPECT_NE(other.plane(0), first) << "a buffer of another size took the storage";
    FrameBuffer b(fmt, pinned);
    EXPECT_TRUE(b.pinned());
    EXPECT_EQ(b.plane(0), first) << "the kept storage was not reused";
    for (unsigned y = 0; y < fmt.height; ++y)
      for (std::size_t x = b.row_bytes(0); x < static_cast<std::size_t>(b.stride(0)); ++x)
        ASSERT_EQ(b.plane(0)[y * b.stride(0) + x], 0) << "padding of row " << y << " not zeroed again";
  }
  // b's and other's storage are kept now.
  EXPECT_EQ(release_pinned_frame_memory(), 2u);
  EXPECT_EQ(release_pinned_frame_memory(), 0u);
}

// ---- several --gpu entries ---------------------------------------------------

// Two and three entries on the one GPU of the test machine: the scheduling
// of several devices (worker w on entry w % n, one frame queue, commits in
// frame order) gives the CPU's bits on every fixture pair.
TEST(CudaMultiGpu, EntriesSharingOneGpuGiveTheSameBitsOnEveryFixture) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<std::string> f = {"motion=debug=true", "vif", "adm"};
  for (const auto& pair : fixture_pairs()) {
    RunOptions cpu_opts;
    cpu_opts.threads = 1;
    const RunResult cpu = run_fixture(pair, f, cpu_opts);
    for (const std::vector<int>& gpus : {std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}}) {
      RunOptions o;
      o.backend = Backend::cuda;
      o.gpus = gpus;
      o.threads = 2;
      const RunResult gpu = run_fixture(pair, f, o);
      const std::string what = fmt::format("{} on --gpu {}", pair.name, fmt::join(gpus, ","));
      EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u);
      EXPECT_EQ(gpu.threads, 2u * gpus.size()) << what;
      EXPECT_EQ(gpu.cuda_gpus, gpus) << what;
    }
  }
}

// Every entry scores frames (the workers start together) and the counts add
// up to the clip; the bits are the CPU's.
TEST(CudaMultiGpu, EveryEntryScoresFramesOfALongerClip) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{320, 180, PixelFormat::yuv420, 8};
  constexpr std::uint64_t kFrames = 48;
  auto content = [](std::uint64_t frame, unsigned plane, unsigned x, unsigned y) -> unsigned {
    return static_cast<unsigned>((x * 3 + y * 5 + frame * 7 + plane * 11 + (x * y) % 13) & 255u);
  };
  auto run_with = [&](const RunOptions& o) {
    SyntheticReader ref("ref", fmt, kFrames, content),
        dist("dist", fmt, kFrames, [&](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
          return content(f, p, x, y) ^ ((x + y + f) % 5 == 0 ? 3u : 0u);
        });
    std::vector<FeatureRequest> req{parse_feature_request("motion=debug=true"), parse_feature_request("vif"),
                                    parse_feature_request("adm")};
    return run(ref, dist, std::move(req), o);
  };
  RunOptions cpu_opts;
  cpu_opts.threads = 1;
  const RunResult cpu = run_with(cpu_opts);
  RunOptions o;
  o.backend = Backend::cuda;
  o.gpus = {0, 0};
  o.threads = 2;
  const RunResult gpu = run_with(o);
  EXPECT_GT(expect_same_bits(cpu, gpu, "48 frames on --gpu 0,0"), 0u);
  ASSERT_EQ(gpu.cuda_gpu_frames.size(), 2u);
  EXPECT_GT(gpu.cuda_gpu_frames[0], 0u);
  EXPECT_GT(gpu.cuda_gpu_frames[1], 0u);
  EXPECT_EQ(gpu.cuda_gpu_frames[0] + gpu.cuda_gpu_frames[1], kFrames);
  // Both entries share the GPU's history ring; every history frame is counted once.
  EXPECT_EQ(gpu.cuda_history_on_device + gpu.cuda_history_uploaded, kFrames - 1);
}

// "all" is every usable device: the CPU's bits where there is one, and
// --backend auto's fallback where there is none.
TEST(CudaMultiGpu, AllDevicesOrTheFallback) {
  const auto pair = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(pair);
  std::vector<std::string> warnings;
  RunOptions o;
  o.backend = Backend::automatic;
  o.gpus = {};
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const RunResult r = run_fixture(*pair, {"motion"}, o);
  RunOptions cpu_opts;
  cpu_opts.threads = 1;
  expect_same_bits(run_fixture(*pair, {"motion"}, cpu_opts), r, "--gpu all");
  if (device_problem().empty()) {
    EXPECT_EQ(r.backend, Backend::cuda);
    EXPECT_EQ(r.cuda_gpus.size(), cuda_status().devices.size());
    EXPECT_TRUE(warnings.empty());
  } else {
    EXPECT_EQ(r.backend, Backend::cpu);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(device_problem()), std::string::npos) << warnings[0];
  }
}

TEST(GpuList, ParsesAllIndicesAndLists) {
  EXPECT_EQ(parse_gpu_list("all"), std::vector<int>{});
  EXPECT_EQ(parse_gpu_list("0"), std::vector<int>{0});
  EXPECT_EQ(parse_gpu_list("3"), std::vector<int>{3});
  EXPECT_EQ(parse_gpu_list("1,0,1"), (std::vector<int>{1, 0, 1}));
}

TEST(GpuList, RejectsAnythingElseNamingTheOption) {
  for (const char* bad : {"", "-1", "1,", ",1", "1,,2", "a", "1.5", "+1", " 1", "1 ", "ALL", "0x1", "99999999999"}) {
    try {
      (void)parse_gpu_list(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), fmt::format("--gpu {}: expected all, a CUDA device index (0, 1, ...) or "
                                                   "indices separated by commas", bad));
    }
  }
}

// ---- backend choice and errors (every build) --------------------------------

TEST(CudaBackend, AutoFallsBackToCpuWithOneWarning) {
  const auto pair = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(pair);
  // null has no CUDA version: auto runs everything on the cpu, saying why.
  std::vector<std::string> warnings;
  RunOptions o;
  o.backend = Backend::automatic;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const RunResult r = run_fixture(*pair, {"null", "motion"}, o);
  EXPECT_EQ(r.backend, Backend::cpu);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("--backend auto"), std::string::npos) << warnings[0];
  if (device_problem().empty()) {
    EXPECT_NE(warnings[0].find("null"), std::string::npos) << warnings[0];
  }
  RunOptions cpu_opts;
  cpu_opts.threads = 1;
  expect_same_bits(run_fixture(*pair, {"null", "motion"}, cpu_opts), r, "auto fallback");
}

TEST(CudaBackend, AutoUsesCudaWhenEveryFeatureCan) {
  REQUIRE_CUDA_DEVICE();
  const auto pair = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(pair);
  std::vector<std::string> warnings;
  RunOptions o;
  o.backend = Backend::automatic;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const RunResult r = run_fixture(*pair, {"motion"}, o);
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_TRUE(warnings.empty());
}

TEST(CudaBackend, CudaWithoutUsableDeviceIsAnError) {
  if (device_problem().empty()) GTEST_SKIP() << "a CUDA device is present";
  const auto pair = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(pair);
  RunOptions o;
  o.backend = Backend::cuda;
  try {
    run_fixture(*pair, {"motion"}, o);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--backend cuda: "), std::string::npos) << m;
    EXPECT_NE(m.find(device_problem()), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(CudaBackend, FeatureWithoutCudaIsNamed) {
  REQUIRE_CUDA_DEVICE();
  const auto pair = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(pair);
  RunOptions o;
  o.backend = Backend::cuda;
  try {
    run_fixture(*pair, {"motion", "null"}, o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("feature null has no CUDA version"), std::string::npos) << e.what();
  }
}

// ---- the command line --------------------------------------------------------

struct CmdResult {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// env: "NAME=value ..." set for the command; stdin_cmd: a shell command
// whose output is the CLI's standard input (default none).
CmdResult cli(const std::string& args, const std::string& env = "", const std::string& stdin_cmd = "") {
  const auto dir = std::filesystem::temp_directory_path() / ("exactvmaf_backend_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = (stdin_cmd.empty() ? "" : "( " + stdin_cmd + " ) | ") + (env.empty() ? "" : "env " + env + " ") +
                          "'" + EXACTVMAF_CLI + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'" +
                          (stdin_cmd.empty() ? " </dev/null" : "");
  const int status = std::system(cmd.c_str());
  CmdResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string c01_args() {
  return "-r '" + (fixtures_dir() / "c01_176x144_8b_420_ref.yuv").string() + "' -d '" +
         (fixtures_dir() / "c01_176x144_8b_420_dist.yuv").string() + "' -w 176 -h 144 -p 420 -b 8 -q --json";
}

// A JSON report without its "fps" line, the one line two backends' reports
// may differ in.
std::string without_fps(std::string s) {
  const auto at = s.find("\"fps\"");
  if (at != std::string::npos) s.erase(at, s.find('\n', at) - at);
  return s;
}

void expect_one_line_error(const CmdResult& r, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CudaCli, BackendCudaWithoutDeviceExitsWithOne) {
  if (device_problem().empty()) GTEST_SKIP() << "a CUDA device is present";
  expect_one_line_error(cli(c01_args() + " -n --feature motion --backend cuda"), "--backend cuda: " + device_problem());
}

TEST(CudaCli, BadGpuIndexExitsWithOne) {
  const CmdResult r = cli(c01_args() + " -n --feature motion --backend cuda --gpu 99");
  // With devices: the index is wrong; without: there is no device at all.
  expect_one_line_error(r, device_problem().empty() ? "--gpu 99: no such CUDA device" : "--backend cuda: ");
}

TEST(CudaCli, BadGpuListExitsWithOne) {
  expect_one_line_error(cli(c01_args() + " -n --feature motion --backend cuda --gpu 0,x"),
                        "--gpu 0,x: expected all, a CUDA device index");
  const CmdResult r = cli(c01_args() + " -n --feature motion --backend cuda --gpu 0,99");
  expect_one_line_error(r, device_problem().empty() ? "--gpu 99: no such CUDA device" : "--backend cuda: ");
}

// Two entries on one GPU: the same report as the CPU, and the frames each
// entry scored on stderr.
TEST(CudaCli, TwoGpuEntriesReportTheirFrames) {
  REQUIRE_CUDA_DEVICE();
  std::string args = c01_args();
  args.erase(args.find(" -q"), 3);
  const std::string f = " -n --feature motion=debug=true --precision max";
  const CmdResult cpu = cli(args + f + " --backend cpu");
  const CmdResult gpu = cli(args + f + " --backend cuda --gpu 0,0 --threads 2");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_EQ(without_fps(gpu.out), without_fps(cpu.out));
  EXPECT_NE(gpu.err.find("cuda, 4 threads"), std::string::npos) << gpu.err;
  EXPECT_NE(gpu.err.find("frames per GPU: 0: "), std::string::npos) << gpu.err;
  EXPECT_EQ(cpu.err.find("frames per GPU"), std::string::npos) << cpu.err;
}

TEST(CudaCli, CudaOutputEqualsCpuOutput) {
  REQUIRE_CUDA_DEVICE();
  const std::string f = " -n --feature motion=debug=true --precision max";
  const CmdResult cpu = cli(c01_args() + f + " --backend cpu");
  const CmdResult gpu = cli(c01_args() + f + " --backend cuda --threads 3");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_EQ(without_fps(gpu.out), without_fps(cpu.out));
  EXPECT_NE(cpu.out.find("integer_motion2"), std::string::npos);
}

// --cpu_while_cuda_starts on (the CLI's default): CPU threads score the first frames while CUDA starts,
// then the device takes over, with the report of a run that waits for it.
// The distorted video comes through a pipe that stalls for 4 s after its
// first 3 frames: those reach the CPU threads long before the device is
// ready (~0.3 s), the other 7 only after the hand-over, so the GPU must
// score them.
TEST(CudaCli, CpuThreadsScoreTheFirstFramesWhileCudaStarts) {
  REQUIRE_CUDA_DEVICE();
  const auto dist = fixtures_dir() / "c01_176x144_8b_420_dist.yuv";
  const std::size_t frame_bytes = 176 * 144 * 3 / 2;
  const std::string slow_pipe = "head -c " + std::to_string(3 * frame_bytes) + " '" + dist.string() +
                                "'; sleep 4; tail -c +" + std::to_string(3 * frame_bytes + 1) + " '" + dist.string() + "'";
  std::string args = c01_args();
  args.erase(args.find(" -q"), 3);
  args.replace(args.find(dist.string()), dist.string().size(), "-");
  args += " --precision max --feature ciede";  // vmaf_v0.6.1 and ciede
  const CmdResult cpu = cli(c01_args() + " --precision max --feature ciede --backend cpu");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  const CmdResult head = cli(args + " --backend cuda --cpu_while_cuda_starts on", "", slow_pipe);
  ASSERT_EQ(head.exit_code, 0) << head.err;
  EXPECT_EQ(without_fps(head.out), without_fps(cpu.out));
  unsigned long long on_cpu = 0, on_gpu = 0;
  const auto at = head.err.find(" scored on the cpu while CUDA started");
  ASSERT_NE(at, std::string::npos) << head.err;
  const auto line = head.err.rfind('\n', at) + 1;
  ASSERT_EQ(std::sscanf(head.err.c_str() + line, " %llu frame", &on_cpu), 1) << head.err;
  ASSERT_EQ(std::sscanf(head.err.c_str() + at, " scored on the cpu while CUDA started, %llu on the GPU", &on_gpu), 1)
      << head.err;
  EXPECT_GE(on_cpu, 1u) << head.err;
  EXPECT_LE(on_cpu, 3u) << head.err;
  EXPECT_EQ(on_cpu + on_gpu, 10u) << head.err;
  // On by default in the CLI.
  const CmdResult by_default = cli(args + " --backend cuda", "", slow_pipe);
  ASSERT_EQ(by_default.exit_code, 0) << by_default.err;
  EXPECT_EQ(without_fps(by_default.out), without_fps(cpu.out));
  EXPECT_NE(by_default.err.find(" scored on the cpu while CUDA started"), std::string::npos) << by_default.err;
  const CmdResult wait = cli(args + " --backend cuda --cpu_while_cuda_starts off", "", slow_pipe);
  ASSERT_EQ(wait.exit_code, 0) << wait.err;
  EXPECT_EQ(without_fps(wait.out), without_fps(cpu.out));
  EXPECT_EQ(wait.err.find("while CUDA started"), std::string::npos) << wait.err;
}

// A CUDA run ends with std::_Exit (no context teardown): the report file and
// standard output must still be complete; EXACTVMAF_FULL_EXIT=1 exits the
// ordinary way.
TEST(CudaCli, ExitWithoutTeardownKeepsEveryOutput) {
  REQUIRE_CUDA_DEVICE();
  const std::string f = " -n --feature motion=debug=true --precision max";
  const CmdResult cpu = cli(c01_args() + f + " --backend cpu");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  const auto report = std::filesystem::temp_directory_path() /
                      ("exactvmaf_backend_test_quick_exit_" + std::to_string(::getpid()) + ".json");
  for (const std::string env : {"EXACTVMAF_STARTUP_TRACE=1", "EXACTVMAF_STARTUP_TRACE=1 EXACTVMAF_FULL_EXIT=1"}) {
    SCOPED_TRACE(env);
    std::filesystem::remove(report);
    const CmdResult to_file = cli(c01_args() + f + " --backend cuda -o '" + report.string() + "'", env);
    ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
    EXPECT_EQ(without_fps(slurp(report)), without_fps(cpu.out));
    const bool quick = to_file.err.find("exit without CUDA teardown") != std::string::npos;
    EXPECT_EQ(quick, env.find("FULL_EXIT") == std::string::npos) << to_file.err;
    const CmdResult to_stdout = cli(c01_args() + f + " --backend cuda", env);
    ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
    EXPECT_EQ(without_fps(to_stdout.out), without_fps(cpu.out));
  }
  std::filesystem::remove(report);
  // A CPU run keeps the ordinary exit (leak checkers run in its exit handlers).
  const CmdResult traced_cpu = cli(c01_args() + f + " --backend cpu", "EXACTVMAF_STARTUP_TRACE=1");
  ASSERT_EQ(traced_cpu.exit_code, 0) << traced_cpu.err;
  EXPECT_EQ(traced_cpu.err.find("exit without CUDA teardown"), std::string::npos) << traced_cpu.err;
}

}  // namespace
}  // namespace exactvmaf::test
