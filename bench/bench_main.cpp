// Throughput of features x backend x resolution x threads, frames per second.
//
//   exactvmaf_bench [--benchmark_filter=REGEX] [google-benchmark flags]
//
// Inputs are raw 8-bit 4:2:0 pairs generated once into $EXACTVMAF_BENCH_DIR
// (default /tmp/exactvmaf-bench) and read from files each iteration (the page
// cache, once warm), as the CLI reads them. The "fps" counter is frames per
// wall-clock second of the whole run() (reading, features, collection).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/exactvmaf.hpp"

namespace ev = exactvmaf;
namespace fs = std::filesystem;

namespace {

struct Size {
  const char* name;
  unsigned w, h, frames;
};
const Size kSizes[] = {{"576x324", 576, 324, 240}, {"1920x1080", 1920, 1080, 60}, {"3840x2160", 3840, 2160, 24}};

fs::path bench_dir() {
  const char* d = std::getenv("EXACTVMAF_BENCH_DIR");
  return d ? fs::path(d) : fs::path("/tmp/exactvmaf-bench");
}

// A deterministic pair: a moving gradient with texture, and the same with
// coding-like noise. Written once; later runs reuse the files.
std::pair<fs::path, fs::path> ensure_pair(const Size& s) {
  const fs::path ref = bench_dir() / fmt::format("ref_{}_8b_420_{}f.yuv", s.name, s.frames);
  const fs::path dist = bench_dir() / fmt::format("dist_{}_8b_420_{}f.yuv", s.name, s.frames);
  ev::VideoFormat f{s.w, s.h, ev::PixelFormat::yuv420, 8};
  const auto frame_bytes = f.packed_frame_bytes();
  if (fs::exists(ref) && fs::exists(dist) && fs::file_size(ref) == frame_bytes * s.frames &&
      fs::file_size(dist) == frame_bytes * s.frames)
    return {ref, dist};
  fs::create_directories(bench_dir());
  std::ofstream r(ref, std::ios::binary), d(dist, std::ios::binary);
  std::mt19937 rng(42);
  std::vector<unsigned char> a(frame_bytes), b(frame_bytes);
  for (unsigned i = 0; i < s.frames; ++i) {
    std::size_t k = 0;
    for (unsigned p = 0; p < 3; ++p)
      for (unsigned y = 0; y < f.plane_height(p); ++y)
        for (unsigned x = 0; x < f.plane_width(p); ++x, ++k) {
          const unsigned v = p ? 128 + ((x + y + i) % 32) : ((x * 3 + y * 5 + i * 7) % 200) + ((x ^ y) & 15);
          a[k] = static_cast<unsigned char>(v);
          const int n = static_cast<int>(rng() % 9) - 4;
          b[k] = static_cast<unsigned char>(std::clamp(static_cast<int>(v) + n, 0, 255));
        }
    r.write(reinterpret_cast<const char*>(a.data()), static_cast<std::streamsize>(a.size()));
    d.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  return {ref, dist};
}

void run_feature(benchmark::State& state, const Size& s, const std::string& feature, unsigned threads) {
  const auto [ref_path, dist_path] = ensure_pair(s);
  ev::RawParams raw{s.w, s.h, ev::PixelFormat::yuv420, 8};
  std::uint64_t frames = 0;
  for (auto _ : state) {
    auto ref = ev::open_raw(ref_path.string(), raw);
    auto dist = ev::open_raw(dist_path.string(), raw);
    ev::RunOptions o;
    o.threads = threads;
    const auto r = ev::run(*ref, *dist, {ev::parse_feature_request(feature)}, o);
    frames += r.frames;
    benchmark::DoNotOptimize(r.scores.metric_count());
  }
  state.counters["fps"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.counters["frames"] = static_cast<double>(s.frames);
}

void register_all() {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> thread_counts = {1, 2};
  if (hw > 2) thread_counts.push_back(hw);
  for (const char* feature : {"null", "psnr", "float_psnr", "motion"})
    for (const auto& s : kSizes)
      for (unsigned t : thread_counts)
        benchmark::RegisterBenchmark(fmt::format("{}/cpu/{}/threads:{}/file", feature, s.name, t).c_str(),
                                     [=](benchmark::State& st) { run_feature(st, s, feature, t); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(1.0);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
