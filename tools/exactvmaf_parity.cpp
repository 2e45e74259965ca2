// exactvmaf-parity: scores one input on the cpu and on cuda (and optionally
// cuda with N threads, and cuda without graphs) and compares every per-frame
// value and aggregate bit for bit. --device_fp64 chooses the cuda runs'
// arithmetic; each comparison names the one that ran. Exit 0: all identical;
// 1: some value differs; 2: the input or options were refused (a one-line
// user error: bad input, no device, a feature without CUDA); 3: an internal
// or CUDA error (exactvmaf::InternalError or any other failure), which the
// GPU checks count as a failure.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "exactvmaf/exactvmaf.hpp"
#include "exactvmaf/model.hpp"

namespace ev = exactvmaf;

namespace {

struct Settings {
  std::string ref_path, dist_path;
  std::optional<unsigned> width, height, bitdepth;
  std::optional<std::string> pix_fmt;
  std::vector<std::string> features, models;
  std::string model_dir;
  unsigned cpu_threads = 0, cuda_threads = 0, subsample = 1;
  std::uint64_t frame_cnt = 0;
  std::string gpu = "0";
  std::string device_fp64 = "auto";
  bool no_graphs = false, quiet = false;
};

// device_fp64 applies to cuda; the cpu run is the reference arithmetic.
ev::RunResult run_once(const Settings& s, ev::Backend backend, unsigned threads, bool graphs,
                       ev::DeviceFp64 device_fp64 = ev::DeviceFp64::automatic) {
  std::optional<ev::RawParams> raw;
  if (s.width || s.height || s.pix_fmt || s.bitdepth) {
    if (!s.width || !s.height || !s.pix_fmt || !s.bitdepth)
      throw ev::Error("raw YUV input needs all of -w, -h, -p and -b");
    ev::RawParams p;
    p.width = *s.width;
    p.height = *s.height;
    p.bitdepth = *s.bitdepth;
    if (*s.pix_fmt == "420") p.pix_fmt = ev::PixelFormat::yuv420;
    else if (*s.pix_fmt == "422") p.pix_fmt = ev::PixelFormat::yuv422;
    else if (*s.pix_fmt == "444") p.pix_fmt = ev::PixelFormat::yuv444;
    else throw ev::Error(fmt::format("-p/--pixel_format {}: expected 420, 422 or 444", *s.pix_fmt));
    raw = p;
  }
  auto ref = ev::open_video(s.ref_path, raw);
  auto dist = ev::open_video(s.dist_path, raw);
  std::vector<ev::FeatureRequest> features;
  for (const auto& f : s.features) features.push_back(ev::parse_feature_request(f));
  std::vector<ev::ModelSpec> specs;
  for (const auto& m : s.models) specs.push_back(ev::parse_model_spec(m));
  ev::ModelSearch search;
  search.model_dir = s.model_dir;
  const std::vector<ev::Model> models = ev::load_models(specs, search);
  if (!models.empty()) features = ev::model_feature_requests(models, std::move(features));
  ev::RunOptions o;
  o.backend = backend;
  o.gpus = ev::parse_gpu_list(s.gpu);
  o.threads = threads;
  o.cuda_graphs = graphs;
  o.device_fp64 = device_fp64;
  o.subsample = s.subsample;
  o.frame_cnt = s.frame_cnt;
  o.on_warning = [](const std::string& w) { std::fprintf(stderr, "exactvmaf-parity: warning: %s\n", w.c_str()); };
  ev::RunResult r = ev::run(*ref, *dist, std::move(features), o);
  if (!models.empty()) ev::predict(models, r.scores, r.frames, s.subsample);
  return r;
}

bool same_bits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Prints one line per metric; returns whether everything is identical.
bool compare(const std::string& label, const ev::RunResult& cpu, const ev::RunResult& other, bool quiet) {
  bool all_same = true;
  std::printf("%s vs cpu (%.1f fps):\n", label.c_str(), other.fps);
  if (other.frames != cpu.frames) {
    std::printf("  frame count differs: cpu %llu, %s %llu\n", static_cast<unsigned long long>(cpu.frames),
                label.c_str(), static_cast<unsigned long long>(other.frames));
    all_same = false;
  }
  const std::uint64_t frames = std::min(cpu.frames, other.frames);
  for (std::size_t id = 0; id < cpu.scores.metric_count(); ++id) {
    const std::string& name = cpu.scores.metric_name(id);
    const auto oid = other.scores.find_metric(name);
    if (!oid) {
      std::printf("  %s: missing from %s\n", name.c_str(), label.c_str());
      all_same = false;
      continue;
    }
    std::uint64_t identical = 0, total = 0;
    double max_abs = 0;
    std::optional<std::uint64_t> first;
    for (std::uint64_t f = 0; f < frames; ++f) {
      const auto a = cpu.scores.get(id, f), b = other.scores.get(*oid, f);
      if (!a && !b) continue;  // not computed on this frame (subsample) by either
      ++total;
      if (a && b && same_bits(*a, *b)) {
        ++identical;
        continue;
      }
      if (!first) first = f;
      const double d = a && b ? std::fabs(*a - *b) : std::numeric_limits<double>::infinity();
      if (!(d <= max_abs)) max_abs = d;  // NaN counts as the largest
    }
    if (identical != total) all_same = false;
    if (!quiet || identical != total) {
      std::printf("  %-45s %llu/%llu frames identical, max abs diff %.17g", name.c_str(),
                  static_cast<unsigned long long>(identical), static_cast<unsigned long long>(total), max_abs);
      if (first) std::printf(", first differing frame %llu", static_cast<unsigned long long>(*first));
      std::printf("\n");
    }
  }
  for (std::size_t id = 0; id < other.scores.metric_count(); ++id) {
    if (!cpu.scores.find_metric(other.scores.metric_name(id))) {
      std::printf("  %s: only in %s\n", other.scores.metric_name(id).c_str(), label.c_str());
      all_same = false;
    }
  }
  const auto& ca = cpu.scores.aggregates();
  const auto& oa = other.scores.aggregates();
  if (ca.size() != oa.size()) {
    std::printf("  aggregate metrics differ in number: cpu %zu, %s %zu\n", ca.size(), label.c_str(), oa.size());
    all_same = false;
  } else {
    for (std::size_t a = 0; a < ca.size(); ++a) {
      const bool same = ca[a].first == oa[a].first && same_bits(ca[a].second, oa[a].second);
      if (!same) all_same = false;
      if (!quiet || !same)
        std::printf("  aggregate %-35s %s (cpu %.17g, %s %.17g)\n", ca[a].first.c_str(), same ? "identical" : "DIFFERS",
                    ca[a].second, label.c_str(), oa[a].second);
    }
  }
  std::printf("  %s\n", all_same ? "all identical" : "DIFFERENCES");
  return all_same;
}

int run_parity(const Settings& s) {
  if (s.ref_path.empty() || s.dist_path.empty()) throw ev::Error("both -r/--reference and -d/--distorted are required");
  if (s.features.empty() && s.models.empty()) throw ev::Error("nothing requested: add --feature NAME or -m MODEL");
  (void)ev::parse_gpu_list(s.gpu);  // a bad --gpu fails before the cpu run
  const ev::DeviceFp64 device_fp64 = ev::parse_device_fp64(s.device_fp64);

  const ev::RunResult cpu = run_once(s, ev::Backend::cpu, s.cpu_threads, true);
  std::printf("cpu: %llu frames of %s, %u threads (%.1f fps)\n", static_cast<unsigned long long>(cpu.frames),
              cpu.format.describe().c_str(), cpu.threads, cpu.fps);
  // Each cuda run against the cpu, labelled with the arithmetic it used.
  const auto compare_cuda = [&](const std::string& run, unsigned threads, bool graphs) {
    const ev::RunResult r = run_once(s, ev::Backend::cuda, threads, graphs, device_fp64);
    // Frames a worker recomputed on the host are R's bits but not the
    // device's: say how many, so a parity run shows what the device did.
    std::string label =
        fmt::format("cuda ({}, {} arithmetic, --device_fp64 {}, {} of {} frames recomputed on the host", run,
                    r.cuda_fp32pair ? "fp32pair" : "fp64", s.device_fp64, r.cuda_host_frames, r.frames);
    // With several --gpu entries: the frames each scored.
    if (r.cuda_gpus.size() > 1)
      for (std::size_t k = 0; k < r.cuda_gpus.size(); ++k)
        label += fmt::format("{} GPU {}: {} frames", k == 0 ? "; " : ", ", r.cuda_gpus[k], r.cuda_gpu_frames[k]);
    if (r.cuda_history_on_device + r.cuda_history_uploaded)
      label += fmt::format("; history frames: {} from the device ring, {} uploaded", r.cuda_history_on_device,
                           r.cuda_history_uploaded);
    label += ")";
    return compare(label, cpu, r, s.quiet);
  };
  bool same = compare_cuda("1 thread", 1, true);
  if (s.cuda_threads > 1) same = compare_cuda(fmt::format("{} threads", s.cuda_threads), s.cuda_threads, true) && same;
  if (s.no_graphs) same = compare_cuda("1 thread, without graphs", 1, false) && same;
  std::printf("%s\n", same ? "PARITY: identical" : "PARITY: DIFFERENT");
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  CLI::App app{"exactvmaf-parity: the same input on --backend cpu and cuda, compared bit for bit", "exactvmaf-parity"};
  app.set_help_flag("--help", "print this help and exit");
  app.add_option("-r,--reference", s.ref_path, "reference video: .y4m or raw .yuv");
  app.add_option("-d,--distorted", s.dist_path, "distorted video: .y4m or raw .yuv");
  app.add_option("-w,--width", s.width, "width (raw input)");
  app.add_option("-h,--height", s.height, "height (raw input)");
  app.add_option("-p,--pixel_format", s.pix_fmt, "pixel format of raw input: 420, 422 or 444");
  app.add_option("-b,--bitdepth", s.bitdepth, "bit depth of raw input: 8, 10, 12 or 16");
  app.add_option("--feature", s.features, "feature: NAME or NAME=opt=val:opt=val (repeatable)");
  app.add_option("-m,--model", s.models, "VMAF model, as exactvmaf's -m (repeatable; predictions are compared too)");
  app.add_option("--model_dir", s.model_dir, "directory searched first for -m version=NAME");
  app.add_option("--threads", s.cuda_threads, "also run cuda with this many threads (frames in flight)");
  app.add_option("--cpu_threads", s.cpu_threads, "threads of the cpu run (default 0: one per hardware thread)");
  app.add_option("--gpu", s.gpu, "CUDA device: an index (default 0), indices separated by commas or all, as exactvmaf's --gpu");
  app.add_option("--device_fp64", s.device_fp64,
                 "fp64 islands of the cuda runs: on (the device's fp64), off (fp32 operations only) or auto "
                 "(default), as exactvmaf's --device_fp64");
  app.add_option("--subsample", s.subsample, "output every N-th frame")->check(CLI::PositiveNumber);
  app.add_option("--frame_cnt", s.frame_cnt, "score at most N frames (0: all)");
  app.add_flag("--no_graphs", s.no_graphs, "also run cuda launching kernels directly instead of replaying graphs");
  app.add_flag("-q,--quiet", s.quiet, "print only differing metrics and the verdict");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "exactvmaf-parity: error: %s (see --help)\n", e.what());
    return 2;
  }
  try {
    return run_parity(s);
  } catch (const ev::InternalError& e) {
    std::fprintf(stderr, "exactvmaf-parity: internal error: %s\n", e.what());
    return 3;
  } catch (const ev::Error& e) {
    std::fprintf(stderr, "exactvmaf-parity: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exactvmaf-parity: internal error: %s\n", e.what());
    return 3;
  }
}
