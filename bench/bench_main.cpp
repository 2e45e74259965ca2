// Throughput of features x backend x resolution x threads, frames per second.
//
//   exactvmaf_bench [--benchmark_filter=REGEX] [google-benchmark flags]
//
// Names: FEATURE[@natural]/BACKEND/SIZE/threads:N/SOURCE. Inputs are raw
// 8-bit 4:2:0 pairs generated once into $EXACTVMAF_BENCH_DIR (default
// /tmp/exactvmaf-bench): by default a textured gradient with uniform noise
// on the distorted side (noise-like statistics); "@natural" rows use
// video-like content (smooth moving shapes, mild noise; the distorted side
// blurred and coarsely quantised), see ensure_natural_pair. SOURCE "file" reads them from the files each
// iteration (the page cache, once warm), as the CLI does; "memory" serves 8
// preloaded frames in a cycle. The "fps" counter is frames per wall-clock
// second of the whole run() (reading, features, collection, and for
// the vmaf models the prediction); "steady_fps" counts only from the first
// frame committed to the last (without the run's start: threads, device
// buffers, graph capture, the first frames in flight). CUDA builds on a machine with a GPU add
// BACKEND "cuda" rows (--device_fp64 auto; counter fp32pair says which
// arithmetic ran), "cuda-fp64off" rows beside them (--device_fp64 off: fp32
// operations only; a BACKEND of its own so that filters on "cuda/" keep their
// rows), and h2d/... rows: the pinned host-to-device copy limit, in frame
// pairs per second, for the luma and the whole-frame pair of each size.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/exactvmaf.hpp"
#include "exactvmaf/model.hpp"

#if EXACTVMAF_BENCH_CUDA
void register_h2d_benchmarks();  // bench_h2d.cu
#endif

namespace ev = exactvmaf;
namespace fs = std::filesystem;

namespace {

struct Size {
  const char* name;
  unsigned w, h, frames;
};
// Long enough that a run's start (threads, device buffers, graph capture)
// is small against it.
const Size kSizes[] = {{"576x324", 576, 324, 480}, {"1920x1080", 1920, 1080, 240}, {"3840x2160", 3840, 2160, 96}};

fs::path bench_dir() {
  const char* d = std::getenv("EXACTVMAF_BENCH_DIR");
  return d ? fs::path(d) : fs::path("/tmp/exactvmaf-bench");
}

// True when both files of a generated pair exist with `bytes` each (written
// by an earlier run); otherwise makes the folder for writing them.
bool pair_written(const fs::path& ref, const fs::path& dist, std::uintmax_t bytes) {
  if (fs::exists(ref) && fs::exists(dist) && fs::file_size(ref) == bytes && fs::file_size(dist) == bytes) return true;
  fs::create_directories(bench_dir());
  return false;
}

// A deterministic pair: a moving gradient with texture, and the same with
// coding-like noise. Written once; later runs reuse the files.
std::pair<fs::path, fs::path> ensure_pair(const Size& s) {
  const fs::path ref = bench_dir() / fmt::format("ref_{}_8b_420_{}f.yuv", s.name, s.frames);
  const fs::path dist = bench_dir() / fmt::format("dist_{}_8b_420_{}f.yuv", s.name, s.frames);
  ev::VideoFormat f{s.w, s.h, ev::PixelFormat::yuv420, 8};
  const auto frame_bytes = f.packed_frame_bytes();
  if (pair_written(ref, dist, frame_bytes * s.frames)) return {ref, dist};
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

// Natural-looking content, cheap to make (integer arithmetic): a smooth
// diagonal gradient drifting 2 px per frame, a bright disc and a dark
// rectangle moving across it, and -1..+2 noise; chroma: slow gradients with the
// shapes tinted. The distorted frame is a 2x2 box blur of the reference
// quantised to steps of 6, as a coarse encoder would leave it.
std::pair<fs::path, fs::path> ensure_natural_pair(const Size& s) {
  const fs::path ref = bench_dir() / fmt::format("ref_natural_{}_8b_420_{}f.yuv", s.name, s.frames);
  const fs::path dist = bench_dir() / fmt::format("dist_natural_{}_8b_420_{}f.yuv", s.name, s.frames);
  ev::VideoFormat f{s.w, s.h, ev::PixelFormat::yuv420, 8};
  const auto frame_bytes = f.packed_frame_bytes();
  if (pair_written(ref, dist, frame_bytes * s.frames)) return {ref, dist};
  std::ofstream r(ref, std::ios::binary), d(dist, std::ios::binary);
  std::vector<unsigned char> a(frame_bytes), b(frame_bytes);
  std::uint32_t noise = 12345;
  for (unsigned i = 0; i < s.frames; ++i) {
    std::size_t off = 0;
    for (unsigned p = 0; p < 3; ++p) {
      const unsigned pw = f.plane_width(p), ph = f.plane_height(p), sub = p ? 2 : 1;
      // shapes in luma coordinates
      const long cx = static_cast<long>((s.w / 4 + i * s.w / 96) % s.w), cy = static_cast<long>(s.h / 2);
      const long rad = static_cast<long>(s.h / 5);
      const long rx0 = static_cast<long>((s.w * 3 / 4 + s.w - (i * s.w / 128) % s.w) % s.w), ry0 = static_cast<long>(s.h / 6);
      for (unsigned y = 0; y < ph; ++y)
        for (unsigned x = 0; x < pw; ++x) {
          const long lx = static_cast<long>(x * sub), ly = static_cast<long>(y * sub);
          long v = p == 0 ? 40 + (160 * ((lx + ly + 2 * static_cast<long>(i)) % (2 * static_cast<long>(s.w)))) /
                                     (2 * static_cast<long>(s.w))
                          : 128 + (p == 1 ? 1 : -1) * (20 * (lx + static_cast<long>(i))) / static_cast<long>(s.w) -
                                10 + (20 * ly) / static_cast<long>(s.h);
          const long dx = lx - cx, dy = ly - cy;
          if (dx * dx + dy * dy < rad * rad) v = p == 0 ? 220 - (dx * dx + dy * dy) * 40 / (rad * rad) : v + (p == 1 ? 30 : -25);
          if (lx >= rx0 && lx < rx0 + static_cast<long>(s.w / 6) && ly >= ry0 && ly < ry0 + static_cast<long>(s.h / 4))
            v = p == 0 ? 30 + (lx - rx0) % 8 : v - (p == 1 ? 20 : -15);
          noise = noise * 1664525u + 1013904223u;
          v += static_cast<long>(noise >> 30) - 1;  // -1, 0, 1, 2 (mild)
          a[off + static_cast<std::size_t>(y) * pw + x] = static_cast<unsigned char>(std::clamp(v, 0l, 255l));
        }
      for (unsigned y = 0; y < ph; ++y)
        for (unsigned x = 0; x < pw; ++x) {
          const unsigned x1 = std::min(x + 1, pw - 1), y1 = std::min(y + 1, ph - 1);
          const unsigned char* q = a.data() + off;
          const unsigned blur = (q[y * pw + x] + q[y * pw + x1] + q[y1 * pw + x] + q[y1 * pw + x1] + 2u) / 4u;
          b[off + static_cast<std::size_t>(y) * pw + x] = static_cast<unsigned char>(std::min(255u, blur / 6u * 6u + 3u));
        }
      off += static_cast<std::size_t>(pw) * ph;
    }
    r.write(reinterpret_cast<const char*>(a.data()), static_cast<std::streamsize>(a.size()));
    d.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  return {ref, dist};
}

// Frames held in memory (preloaded): `distinct` frames of a file, served
// `frames` times in a cycle, readable from several threads at once. Each
// frame is copied into the pipeline's buffer, as a decoder would write it.
class MemoryReader final : public ev::VideoReader {
 public:
  MemoryReader(const fs::path& file, const ev::VideoFormat& fmt, unsigned distinct, std::uint64_t frames)
      : name_("memory:" + file.filename().string()), frames_(frames) {
    info_.format = fmt;
    info_.container = "memory";
    info_.frame_count = frames;
    auto in = ev::open_raw(file.string(), {fmt.width, fmt.height, fmt.pix_fmt, fmt.bitdepth});
    for (unsigned i = 0; i < distinct; ++i) {
      auto fb = std::make_shared<ev::FrameBuffer>(fmt);
      if (!in->read_frame(*fb)) break;
      cache_.push_back(std::move(fb));
    }
    if (cache_.empty()) throw ev::Error(file.string() + ": no frame to preload");
  }
  const ev::VideoInfo& info() const override { return info_; }
  const std::string& path() const override { return name_; }
  bool read_frame(ev::FrameBuffer& dst) override {
    if (next_ >= frames_) return false;
    read_frame_at(next_++, dst);
    return true;
  }
  bool skip_frame() override { return next_ < frames_ ? (++next_, true) : false; }
  std::uint64_t frames_read() const override { return next_; }
  bool random_access() const override { return true; }
  void set_luma_only(bool luma_only) override { luma_only_ = luma_only; }
  void read_frame_at(std::uint64_t index, ev::FrameBuffer& dst) const override {
    const ev::FrameBuffer& src = *cache_[index % cache_.size()];
    for (unsigned p = 0; p < (luma_only_ ? 1u : info_.format.planes()); ++p)
      for (unsigned y = 0; y < info_.format.plane_height(p); ++y)
        std::memcpy(dst.plane(p) + static_cast<std::ptrdiff_t>(y) * dst.stride(p),
                    src.plane(p) + static_cast<std::ptrdiff_t>(y) * src.stride(p), src.row_bytes(p));
  }

 private:
  std::string name_;
  ev::VideoInfo info_;
  std::vector<std::shared_ptr<const ev::FrameBuffer>> cache_;  // shared by copies
  std::uint64_t frames_, next_ = 0;
  bool luma_only_ = false;
};

enum class Source { file, memory };

// "vmaf_v0.6.1" (any name starting with "vmaf": also vmaf_v1.0.16_3d0h and
// vmaf_v1.0.16_3d0h_2160) is a model found by the model search
// (EXACTVMAF_MODEL_DIR, the build's default, the built-in models); anything
// else a --feature argument.
void run_feature(benchmark::State& state, const Size& s, const std::string& feature, ev::Backend backend,
                 ev::DeviceFp64 device_fp64, unsigned threads, Source source, bool natural,
                 const std::vector<int>& gpus, bool history_ring) {
  const auto [ref_path, dist_path] = natural ? ensure_natural_pair(s) : ensure_pair(s);
  const ev::VideoFormat fmt{s.w, s.h, ev::PixelFormat::yuv420, 8};
  const ev::RawParams raw{s.w, s.h, ev::PixelFormat::yuv420, 8};
  std::vector<ev::Model> models;
  std::vector<ev::FeatureRequest> requests;
  try {
    if (feature.rfind("vmaf", 0) == 0) {
      models = ev::load_models({ev::parse_model_spec("version=" + feature)}, {});
      requests = ev::model_feature_requests(models, {});
    } else {
      requests = {ev::parse_feature_request(feature)};
    }
  } catch (const ev::Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  // Preloaded runs serve each of 8 distinct frames, four times as many
  // frames as the file has.
  const std::uint64_t run_frames = source == Source::memory ? s.frames * 4 : s.frames;
  // ciede on the CPU takes about half a second per 1080p frame of this
  // (noisy) content on one thread: a few frames (about 8 M pixels per
  // thread, at least two frames per thread so every thread works) make a row.
  const std::uint64_t frame_cap =
      feature.rfind("ciede", 0) == 0 && backend == ev::Backend::cpu
          ? std::min<std::uint64_t>(run_frames, threads * std::max<std::uint64_t>(2, 8000000ull / (std::uint64_t{s.w} * s.h)))
          : 0;
  std::unique_ptr<MemoryReader> mem_ref, mem_dist;
  if (source == Source::memory) {
    mem_ref = std::make_unique<MemoryReader>(ref_path, fmt, 8, run_frames);
    mem_dist = std::make_unique<MemoryReader>(dist_path, fmt, 8, run_frames);
  }
  std::uint64_t frames = 0;
  double upload_ms = 0, kernel_ms = 0;
  std::uint64_t history_on_device = 0, history_frames = 0;
  double steady_seconds = 0;
  std::uint64_t steady_frames = 0;  // frames after each run's first
  bool fp32pair = false;
  for (auto _ : state) {
    std::unique_ptr<ev::VideoReader> ref, dist;
    if (source == Source::file) {
      ref = ev::open_raw(ref_path.string(), raw);
      dist = ev::open_raw(dist_path.string(), raw);
    } else {
      ref = std::make_unique<MemoryReader>(*mem_ref);
      dist = std::make_unique<MemoryReader>(*mem_dist);
    }
    ev::RunOptions o;
    o.threads = threads;
    o.backend = backend;
    o.device_fp64 = device_fp64;
    o.gpus = gpus;
    o.cuda_timing = backend == ev::Backend::cuda;
    o.cuda_history_ring = history_ring;
    double first_commit = -1, last_commit = 0;
    std::uint64_t last_done = 0;
    o.on_progress = [&](const ev::Progress& p) {
      if (first_commit < 0) first_commit = p.seconds;
      last_commit = p.seconds;
      last_done = p.frames_done;
    };
    o.frame_cnt = frame_cap;
    try {
      auto r = ev::run(*ref, *dist, requests, o);
      upload_ms += r.cuda_upload_ms;
      kernel_ms += r.cuda_kernel_ms;
      if (last_done > 1) {
        steady_seconds += last_commit - first_commit;
        steady_frames += last_done - 1;
      }
      history_on_device += r.cuda_history_on_device;
      history_frames += r.cuda_history_on_device + r.cuda_history_uploaded;
      fp32pair = r.cuda_fp32pair;
      if (!models.empty()) ev::predict(models, r.scores, r.frames, 1);
      frames += r.frames;
      benchmark::DoNotOptimize(r.scores.metric_count());
    } catch (const ev::Error& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
  state.counters["fps"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  if (steady_seconds > 0) state.counters["steady_fps"] = static_cast<double>(steady_frames) / steady_seconds;
  state.counters["frames"] = static_cast<double>(frame_cap ? std::min(frame_cap, run_frames) : run_frames);
  if (backend == ev::Backend::cuda && frames) {  // device time per frame (streams overlap)
    state.counters["upload_ms"] = upload_ms / static_cast<double>(frames);
    state.counters["kernel_ms"] = kernel_ms / static_cast<double>(frames);
    state.counters["fp32pair"] = fp32pair ? 1 : 0;
    // Share of the history frames copied on the device (RunOptions::cuda_history_ring).
    if (history_frames)
      state.counters["history_ring"] = static_cast<double>(history_on_device) / static_cast<double>(history_frames);
  }
}

void register_all() {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> cpu_threads = {1, 2};
  if (hw > 2) cpu_threads.push_back(hw);
  const ev::CudaStatus cuda = ev::cuda_status();
  const bool have_cuda = !cuda.devices.empty();
  std::vector<unsigned> cuda_threads = {1, 4, 8};
  if (hw > 8) cuda_threads.push_back(hw);
  // Rows on the generated noise-like pairs, and on natural content
  // (FEATURE@natural/...) for the features whose work depends on content;
  // `sizes` limits a set to some of kSizes (empty: all of them).
  struct RowSet {
    bool natural;
    std::vector<const char*> features;
    std::vector<std::string> sizes;
  };
  // cambi with its defaults and as the VMAF v1.0.16 models run it.
  const char* const cambi_v1016 = "cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17";
  const RowSet row_sets[] = {
      {false,
       {"null", "psnr", "float_psnr", "motion", "adm", "float_adm", "vif", "vmaf_v0.6.1", "speed_chroma",
        "speed_temporal", "ciede", "ciede=lab_table=false"},
       {}},
      {true, {"vmaf_v0.6.1", "float_adm", "speed_chroma", "speed_temporal", "ciede", "ciede=lab_table=false"}, {}},
      {false, {"cambi", cambi_v1016}, {"1920x1080", "3840x2160"}},
      {true, {"cambi", cambi_v1016}, {"1920x1080", "3840x2160"}},
      // The float features and the vmaf_float model (issue 16).
      {false,
       {"float_vif", "float_motion", "float_ansnr", "float_moment", "float_ssim", "float_ms_ssim", "psnr_hvs",
        "vmaf_float_v0.6.1"},
       {"1920x1080", "3840x2160"}},
      {false, {"vmaf_v1.0.16_3d0h"}, {"1920x1080"}},
      {true, {"vmaf_v1.0.16_3d0h"}, {"1920x1080"}},
      {false, {"vmaf_v1.0.16_3d0h_2160"}, {"3840x2160"}},
      {true, {"vmaf_v1.0.16_3d0h_2160"}, {"3840x2160"}},
  };
  for (const RowSet& set : row_sets)
    for (const char* feature : set.features)
      for (const auto& s : kSizes) {
        if (!set.sizes.empty() && std::find(set.sizes.begin(), set.sizes.end(), s.name) == set.sizes.end()) continue;
        for (Source src : {Source::file, Source::memory}) {
          const char* src_name = src == Source::file ? "file" : "memory";
          const bool natural = set.natural;
          auto reg = [&](ev::Backend b, ev::DeviceFp64 fp64, const char* bname, unsigned t,
                         std::vector<int> gpus = {0}, bool ring = true) {
            benchmark::RegisterBenchmark(
                fmt::format("{}{}/{}/{}/threads:{}/{}", feature, natural ? "@natural" : "", bname, s.name, t, src_name)
                    .c_str(),
                [=](benchmark::State& st) { run_feature(st, s, feature, b, fp64, t, src, natural, gpus, ring); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime()
                ->MinTime(1.0);
          };
          for (unsigned t : cpu_threads) reg(ev::Backend::cpu, ev::DeviceFp64::automatic, "cpu", t);
          if (have_cuda) {
            for (unsigned t : cuda_threads) {
              reg(ev::Backend::cuda, ev::DeviceFp64::automatic, "cuda", t);
              reg(ev::Backend::cuda, ev::DeviceFp64::off, "cuda-fp64off", t);
            }
            // --gpu 0,0: two entries, 2 frames in flight each, on one GPU
            // (what several devices cost in scheduling, against threads:4);
            // --gpu all on a machine with several GPUs (threads per GPU).
            reg(ev::Backend::cuda, ev::DeviceFp64::automatic, "cuda-gpu0x2", 2, {0, 0});
            // Features with history, their previous frames uploaded by every
            // thread (RunOptions::cuda_history_ring off), against "cuda".
            const std::string f = feature;
            if (f.rfind("vmaf", 0) == 0 || f == "motion" || f == "speed_temporal")
              for (unsigned t : {4u, 8u}) reg(ev::Backend::cuda, ev::DeviceFp64::automatic, "cuda-noring", t, {0}, false);
            if (cuda.devices.size() > 1) reg(ev::Backend::cuda, ev::DeviceFp64::automatic, "cuda-allgpus", 4, {});
          }
        }
      }
#if EXACTVMAF_BENCH_CUDA
  if (have_cuda) register_h2d_benchmarks();
#endif
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
