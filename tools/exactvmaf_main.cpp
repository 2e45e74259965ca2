// The exactvmaf command line: libvmaf's flags, libvmaf's output formats.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "exactvmaf/exactvmaf.hpp"
#include "exactvmaf/model.hpp"
#include "core/startup_trace.hpp"
#include "io/readers.hpp"
#include "backends/cuda/runner.hpp"
#include "report_file.hpp"
#if EXACTVMAF_HAVE_LIBAV
#include "av/av_input.hpp"
#endif

namespace ev = exactvmaf;

namespace {

struct Settings {
  std::string ref_path, dist_path;
  std::optional<unsigned> width, height, bitdepth;
  std::optional<std::string> pix_fmt;
  std::vector<std::string> features;
  std::vector<std::string> models;
  std::string model_dir;
  unsigned threads = 0, subsample = 1, read_ahead = 0;
  std::uint64_t frame_cnt = 0, skip_ref = 0, skip_dist = 0;
  std::string output;
  bool json = false, xml = false, csv = false, sub = false;
  std::string precision = "legacy";
  std::string backend = "cpu";
  std::string gpu = "0";
  bool quiet = false, no_prediction = false, list_features = false, list_models = false;
  std::string simd = "auto";
  std::string device_fp64 = "auto";
  std::string cpu_while_cuda_starts = "on";
  bool no_simd = false;
  // Compressed input (src/av/, docs/input.md).
  std::optional<unsigned> stream, stream_ref, stream_dist;
  unsigned decoder_threads = 0;
  std::optional<std::string> scale;
  bool scale_both = false;
  std::string hwdec = "auto";
};

#if EXACTVMAF_HAVE_LIBAV
// --hwdec: the GPU compressed inputs are decoded on (NVDEC, frames stay in
// device memory), or -1 for the CPU. auto: with --backend cuda on one GPU
// that works, without --scale auto (its format conversion runs on the host);
// cuda: the same conditions, as errors when they fail. The run's own
// conditions are checked before the build's and the device's.
int hwdec_gpu(const Settings& s, const ev::RunOptions& opts) {
  if (s.hwdec == "none") return -1;
  if (s.hwdec != "auto" && s.hwdec != "cuda")
    throw ev::Error(fmt::format("--hwdec {}: expected none, cuda or auto", s.hwdec));
  const bool required = s.hwdec == "cuda";
  // auto with nothing to decode: the device is not asked (its start is left
  // to the run, which may score on CPU threads meanwhile).
  if (!required && !ev::av::may_decode(s.ref_path) && !ev::av::may_decode(s.dist_path)) return -1;
  std::string why_not;
  if (opts.backend != ev::Backend::cuda) why_not = "it needs --backend cuda";
  else if (opts.gpus.size() != 1) why_not = "it needs one GPU (--gpu N)";
  else if (s.scale && *s.scale == "auto")
    why_not = "--scale auto converts pixel formats on the host (use --hwdec none)";
  else if (!ev::av::hwdec_cuda_built()) why_not = "this exactvmaf was built without CUDA";
  else if (const std::string problem = ev::cuda::device_problem(opts.gpus.front()); !problem.empty())
    why_not = problem;
  if (why_not.empty()) return opts.gpus.front();
  if (required) throw ev::Error("--hwdec cuda: " + why_not);
  return -1;
}
#endif

void print_features() {
  for (const auto& f : ev::feature_registry()) {
    std::printf("%s\n    %s\n", f.name.c_str(), f.help.c_str());
    for (const auto& o : f.options) {
      std::string def;
      if (auto* b = std::get_if<bool>(&o.default_value)) def = *b ? "true" : "false";
      else if (auto* i = std::get_if<std::int64_t>(&o.default_value)) def = std::to_string(*i);
      else if (auto* d = std::get_if<double>(&o.default_value)) def = fmt::format("{}", *d);
      else def = std::get<std::string>(o.default_value);
      std::printf("    %-20s (default %s) %s\n", o.name.c_str(), def.c_str(), o.help.c_str());
    }
  }
}

std::optional<ev::RawParams> raw_params(const Settings& s) {
  if (!s.width && !s.height && !s.pix_fmt && !s.bitdepth) return std::nullopt;
  ev::RawParams p;
  std::vector<std::string> missing;
  if (!s.width) missing.push_back("-w/--width");
  if (!s.height) missing.push_back("-h/--height");
  if (!s.pix_fmt) missing.push_back("-p/--pixel_format");
  if (!s.bitdepth) missing.push_back("-b/--bitdepth");
  if (!missing.empty())
    throw ev::Error(fmt::format("raw YUV input needs {} (given only some of -w -h -p -b)", fmt::join(missing, ", ")));
  p.width = *s.width;
  p.height = *s.height;
  p.bitdepth = *s.bitdepth;
  if (*s.pix_fmt == "420") p.pix_fmt = ev::PixelFormat::yuv420;
  else if (*s.pix_fmt == "422") p.pix_fmt = ev::PixelFormat::yuv422;
  else if (*s.pix_fmt == "444") p.pix_fmt = ev::PixelFormat::yuv444;
  else throw ev::Error(fmt::format("-p/--pixel_format {}: expected 420, 422 or 444", *s.pix_fmt));
  if (p.bitdepth != 8 && p.bitdepth != 10 && p.bitdepth != 12 && p.bitdepth != 16)
    throw ev::Error(fmt::format("-b/--bitdepth {}: expected 8, 10, 12 or 16", p.bitdepth));
  if (p.width == 0 || p.height == 0)
    throw ev::Error(fmt::format("-w/-h {}x{}: width and height must be positive", p.width, p.height));
  return p;
}

std::string frames_text(std::uint64_t n) { return fmt::format("{} frame{}", n, n == 1 ? "" : "s"); }

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  return fmt::format("{}:{:02d}", s / 60, static_cast<int>(s % 60));
}

// Set once a run has scored on CUDA: main() then ends with std::_Exit.
bool g_scored_on_cuda = false;

int run_cli(const Settings& s) {
  ev::pipeline::startup_mark("main");
  if (s.list_features) {
    print_features();
    return 0;
  }
  if (s.list_models) {
    for (const auto& name : ev::builtin_model_names()) std::printf("%s\n", name.c_str());
    return 0;
  }
  if (s.no_simd || s.simd == "scalar") ev::set_simd_limit(ev::SimdLevel::scalar);
  else if (s.simd == "avx2") ev::set_simd_limit(ev::SimdLevel::avx2);
  else if (s.simd != "auto" && s.simd != "avx512")
    throw ev::Error(fmt::format("--simd {}: expected auto, avx512, avx2 or scalar", s.simd));
  if (s.ref_path.empty() || s.dist_path.empty())
    throw ev::Error("both -r/--reference and -d/--distorted are required");
  if (s.ref_path == "-" && s.dist_path == "-")
    throw ev::Error("only one of -r and -d can read standard input (\"-\")");

  ev::OutputFormat out_fmt = ev::OutputFormat::xml;  // libvmaf's default
  if (int(s.json) + int(s.xml) + int(s.csv) + int(s.sub) > 1)
    throw ev::Error("choose one of --json, --xml, --csv, --sub");
  if (s.json) out_fmt = ev::OutputFormat::json;
  if (s.csv) out_fmt = ev::OutputFormat::csv;
  if (s.sub) out_fmt = ev::OutputFormat::sub;
  const ev::NumberFormat nf = ev::NumberFormat::parse(s.precision);

  ev::RunOptions opts;
  if (s.backend == "cpu") opts.backend = ev::Backend::cpu;
  else if (s.backend == "auto") opts.backend = ev::Backend::automatic;
  else if (s.backend == "cuda") opts.backend = ev::Backend::cuda;
  else throw ev::Error(fmt::format("--backend {}: expected cpu, cuda or auto", s.backend));
  opts.gpus = ev::parse_gpu_list(s.gpu);
  opts.device_fp64 = ev::parse_device_fp64(s.device_fp64);
  if (s.cpu_while_cuda_starts != "on" && s.cpu_while_cuda_starts != "off")
    throw ev::Error(fmt::format("--cpu_while_cuda_starts {}: expected on or off", s.cpu_while_cuda_starts));
  opts.cpu_while_cuda_starts = s.cpu_while_cuda_starts == "on";
  // On the CPU, off runs the fp64-free arithmetic there (scalar kernels).
  if (opts.device_fp64 == ev::DeviceFp64::off && opts.backend == ev::Backend::cpu) ev::set_fp64_emulation(true);

  // Models: as libvmaf's CLI, vmaf_v0.6.1 when no -m and no --no_prediction;
  // with --no_prediction the models' features are still computed. --scale
  // auto may switch the default model to the 4K one once the distorted
  // video's size is known (as ab-av1 does).
  const bool default_model = s.models.empty() && !s.no_prediction;
  std::vector<ev::Model> models;
  std::vector<ev::FeatureRequest> features;
  const auto load = [&](const std::string& default_name) {
    std::vector<ev::ModelSpec> specs;
    for (const auto& m : s.models) specs.push_back(ev::parse_model_spec(m));
    if (default_model) specs.push_back(ev::parse_model_spec("version=" + default_name));
    std::vector<ev::FeatureRequest> user;
    for (const auto& f : s.features) user.push_back(ev::parse_feature_request(f));
    try {
      models = ev::load_models(specs, ev::ModelSearch{s.model_dir});
      features = ev::model_feature_requests(models, std::move(user));
    } catch (const ev::Error& e) {
      if (!default_model) throw;
      throw ev::Error(fmt::format("default model {}: {} (use -m to choose a model, or -n/--no_prediction "
                                  "to compute only --feature)", default_name, e.what()));
    }
    if (features.empty())
      throw ev::Error("no feature requested: add --feature NAME (see --list-features) or a model (-m)");
    ev::pipeline::startup_mark("models loaded");
  };
  load("vmaf_v0.6.1");

  // Open the output first so a bad path fails before any work.
  ReportFile out_file(s.output);
  std::FILE* out = out_file.stream();

  // On a terminal a warning first clears the progress line; in a log it is a plain line.
  const bool stderr_tty = isatty(fileno(stderr));
  const auto print_warning = [stderr_tty](const std::string& w) {
    std::fprintf(stderr, stderr_tty ? "\rexactvmaf: warning: %s\033[K\n" : "exactvmaf: warning: %s\n", w.c_str());
  };
  ev::set_input_warning_handler(print_warning);
  const auto raw = raw_params(s);
  std::string scaling;  // for the report (OutputMeta::scaling)
#if EXACTVMAF_HAVE_LIBAV
  ev::io::RawOptions raw_opts;
  if (raw) {
    raw_opts.width = raw->width;
    raw_opts.height = raw->height;
    raw_opts.pix_fmt = raw->pix_fmt;
    raw_opts.bitdepth = raw->bitdepth;
  }
  ev::av::ReaderOptions ref_opts, dist_opts;
  ref_opts.threads = dist_opts.threads = s.decoder_threads;
  ref_opts.hwdec_gpu = dist_opts.hwdec_gpu = hwdec_gpu(s, opts);
  ref_opts.hwdec_warn = dist_opts.hwdec_warn = s.hwdec == "cuda";
  std::optional<ev::av::ScaleRequest> scale_req;
  if (s.scale) scale_req = ev::av::parse_scale(*s.scale);
  if (scale_req && !scale_req->automatic) {
    // --scale WxH: done where the frames are (the R scaler, same bits on the GPU and the host).
    ev::av::ScaleStep step;
    step.algorithm = scale_req->algorithm;
    step.width = scale_req->width;
    step.height = scale_req->height;
    dist_opts.gpu_scale = step;
    if (s.scale_both) ref_opts.gpu_scale = step;
  }
  ref_opts.stream = s.stream_ref ? s.stream_ref : s.stream;
  dist_opts.stream = s.stream_dist ? s.stream_dist : s.stream;
  std::unique_ptr<ev::VideoReader> ref = ev::av::open_input(s.ref_path, raw_opts, ref_opts, s.stream_ref.has_value());
  std::unique_ptr<ev::VideoReader> dist =
      ev::av::open_input(s.dist_path, raw_opts, dist_opts, s.stream_dist.has_value());
  if (s.stream && ref->info().codec.empty() && dist->info().codec.empty())
    throw ev::Error(fmt::format("--stream {}: neither input is read through FFmpeg (y4m and raw YUV have one stream)",
                                *s.stream));
  if (s.scale_both && !s.scale) throw ev::Error("--scale_both needs --scale WxH");
  // An input decoded on the GPU did its --scale WxH there.
  if (scale_req) {
    const ev::av::ScaleRequest& req = *scale_req;
    ev::av::ScaleStep step;
    step.algorithm = req.algorithm;
    if (req.automatic) {
      // ab-av1: both inputs to the distorted's pixel format, then both to the
      // size its rule picks from the distorted size (and the 4K model above 2560x1440).
      const ev::VideoFormat d = dist->info().format;
      const ev::av::AutoScale a = ev::av::ab_av1_auto_scale(d.width, d.height, s.models);
      if (!a.default_model.empty() && default_model) load(a.default_model);
      step.convert_to = std::pair{d.pix_fmt, d.bitdepth};
      if (a.size) std::tie(step.width, step.height) = *a.size;
      ref = ev::av::scale_reader(std::move(ref), step);
      dist = ev::av::scale_reader(std::move(dist), step);
      scaling = "auto (ab-av1";
      scaling += a.default_model.empty() || !default_model ? "" : ", model " + a.default_model;
      scaling += a.size ? fmt::format(", scale={}:{}:flags=bicubic)", a.size->first, a.size->second) : ", no resize)";
    } else {
      step.width = req.width;
      step.height = req.height;
      if (!dist->info().decoded_on_gpu()) dist = ev::av::scale_reader(std::move(dist), step);
      if (s.scale_both && !ref->info().decoded_on_gpu()) ref = ev::av::scale_reader(std::move(ref), step);
      scaling = fmt::format("{}x{}:{}{}", req.width, req.height, ev::av::scale_algorithm_name(req.algorithm),
                            s.scale_both ? " both" : " distorted");
    }
    for (const auto* r : {ref.get(), dist.get()})
      if (!r->info().scaling.empty())
        scaling += fmt::format("; {}: {}", r == ref.get() ? "reference" : "distorted", r->info().scaling);
    if (scaling.find("libswscale") != std::string::npos || req.automatic)
      scaling += "; " + ev::av::scaler_version() + " (bitexact, accurate_rnd)";
  }
  const char* size_hint =
      " (--scale WxH scales the distorted video; --scale auto converts and scales both, as ab-av1 does)";
#else
  if (s.hwdec == "cuda")
    throw ev::Error("--hwdec cuda: this exactvmaf was built without FFmpeg's libraries (EXACTVMAF_LIBAV)");
  if (s.hwdec != "auto" && s.hwdec != "none")
    throw ev::Error(fmt::format("--hwdec {}: expected none, cuda or auto", s.hwdec));
  if (s.scale || s.scale_both || s.stream || s.stream_ref || s.stream_dist)
    throw ev::Error(std::string(s.scale || s.scale_both ? "--scale" : "--stream") +
                    ": this exactvmaf was built without FFmpeg's libraries (EXACTVMAF_LIBAV), so it reads y4m and "
                    "raw YUV only");
  auto ref = ev::open_video(s.ref_path, raw);
  auto dist = ev::open_video(s.dist_path, raw);
  const char* size_hint = "";
#endif
  ev::pipeline::startup_mark("inputs opened");
  {
    const ev::VideoInfo &ri = ref->info(), &di = dist->info();
    if (!(ri.format == di.format))
      throw ev::Error(fmt::format("{} is {} but {} is {}: reference and distorted must have the same size, "
                                  "pixel format and bit depth{}",
                                  ref->path(), ri.format.describe(), dist->path(), di.format.describe(), size_hint));
    if (ri.range != ev::ColorRange::unknown && di.range != ev::ColorRange::unknown && ri.range != di.range)
      print_warning(fmt::format("\"{}\" is {} range but \"{}\" is {} range: samples are scored as they are (no "
                                "range conversion)",
                                ref->path(), ev::color_range_name(ri.range), dist->path(),
                                ev::color_range_name(di.range)));
  }

  const bool tty = stderr_tty && !s.quiet;
  opts.threads = s.threads;
  opts.subsample = s.subsample;
  opts.read_ahead = s.read_ahead;
  opts.frame_cnt = s.frame_cnt;
  opts.frame_skip_ref = s.skip_ref;
  opts.frame_skip_dist = s.skip_dist;
  opts.on_warning = print_warning;
  double last_print = -1;
  if (tty) {
    opts.on_progress = [&](const ev::Progress& p) {
      if (p.seconds - last_print < 0.1 && p.frames_done != p.frames_total) return;
      last_print = p.seconds;
      const double fps = p.seconds > 0 ? static_cast<double>(p.frames_done) / p.seconds : 0;
      std::string line = fmt::format("\r{}  {:.1f} fps", frames_text(p.frames_done), fps);
      if (p.frames_total && fps > 0 && p.frames_done <= p.frames_total)
        line += fmt::format("  {}/{}  ETA {}", p.frames_done, p.frames_total,
                            clock_text(static_cast<double>(p.frames_total - p.frames_done) / fps));
      std::fprintf(stderr, "%s\033[K", line.c_str());
      std::fflush(stderr);
    };
  }

  ev::RunResult result = ev::run(*ref, *dist, std::move(features), opts);
  ev::pipeline::startup_mark("run returned (workers, device buffers and frame pool released)");
  if (result.backend == ev::Backend::cuda) g_scored_on_cuda = true;
  if (tty) std::fprintf(stderr, "\n");
  if (result.frames == 0) throw ev::Error(fmt::format("{}: no frames to score", s.ref_path));
  if (!s.no_prediction) ev::predict(models, result.scores, result.frames, s.subsample);

  ev::OutputMeta meta;
  meta.version = ev::version();
  meta.subsample = s.subsample;
  meta.width = result.format.width;
  meta.height = result.format.height;
  meta.scaling = scaling;
  if (!ev::write_report(out, out_fmt, result, meta, nf)) out_file.fail_write();
  out_file.commit();
  ev::pipeline::startup_mark("report written");

  if (!s.quiet) {
    std::fprintf(stderr, "exactvmaf %s (numerics %s): %s of %s, %s, %u threads, %.1f fps\n", ev::version(),
                 ev::kNumerics, frames_text(result.frames).c_str(), result.format.describe().c_str(),
                 ev::backend_name(result.backend), result.threads, result.fps);
    if (result.cpu_head_frames && result.backend == ev::Backend::cuda) {
      std::uint64_t on_gpus = 0;
      for (const std::uint64_t n : result.cuda_gpu_frames) on_gpus += n;
      std::fprintf(stderr, "  %s scored on the cpu while CUDA started, %llu on the GPU\n",
                   frames_text(result.cpu_head_frames).c_str(), static_cast<unsigned long long>(on_gpus));
    }
    if (result.cuda_gpus.size() > 1) {  // --gpu with several entries: what each scored
      std::string line = "  frames per GPU:";
      for (std::size_t k = 0; k < result.cuda_gpus.size(); ++k)
        line += fmt::format("{} {}: {}", k ? "," : "", result.cuda_gpus[k], result.cuda_gpu_frames[k]);
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    for (const auto* r : {ref.get(), dist.get()}) {
      const ev::VideoInfo& i = r->info();
      if (i.codec.empty() && i.scaling.empty()) continue;
      std::string line = fmt::format("  {} {}:", r == ref.get() ? "reference" : "distorted", r->path());
      if (!i.codec.empty()) {
        line += fmt::format(" {}, {} {}, {} range", i.container, i.codec, i.source_format, ev::color_range_name(i.range));
        if (i.fps_num) line += fmt::format(", {}/{} fps", i.fps_num, i.fps_den);
        if (i.time_base_num) line += fmt::format(", time base {}/{}", i.time_base_num, i.time_base_den);
        if (!i.conversion.empty()) line += "; " + i.conversion;
      }
      if (!i.scaling.empty()) line += "; scaled " + i.scaling;
      if (!i.hw_decoder.empty()) {
        line += "; " + i.hw_decoder;
        if (i.device_frames) line += fmt::format(", {} frames in device memory", i.device_frames);
      }
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    if (result.cuda_host_downloads)
      std::fprintf(stderr, "  frames decoded on the GPU copied to the host for host steps: %llu\n",
                   static_cast<unsigned long long>(result.cuda_host_downloads));
    const auto last = result.frames - 1;
    for (std::size_t id = 0; id < result.scores.metric_count(); ++id) {
      const auto mean = result.scores.pooled(id, ev::PoolMethod::mean, 0, last, s.subsample);
      if (mean) std::fprintf(stderr, "  %s: %f\n", result.scores.metric_name(id).c_str(), *mean);
    }
    for (const auto& [name, v] : result.scores.aggregates()) std::fprintf(stderr, "  %s: %f\n", name.c_str(), v);
  }
  return 0;
}

// Every option of one scoring run (the command line's, and each line of a
// --batch file's).
void add_options(CLI::App& app, Settings& s) {
  app.set_help_flag("--help", "print this help and exit");  // -h is the height, as in libvmaf
#if EXACTVMAF_HAVE_LIBAV
  app.add_option("-r,--reference", s.ref_path,
                 "reference video: .y4m, raw .yuv, - for y4m on stdin, or any file FFmpeg reads (mp4, mkv, webm, ...)");
  app.add_option("-d,--distorted", s.dist_path,
                 "distorted video: .y4m, raw .yuv, - for y4m on stdin, or any file FFmpeg reads (mp4, mkv, webm, ...)");
#else
  app.add_option("-r,--reference", s.ref_path, "reference video: .y4m, raw .yuv, or - for y4m on stdin");
  app.add_option("-d,--distorted", s.dist_path, "distorted video: .y4m, raw .yuv, or - for y4m on stdin");
#endif
  app.add_option("--stream", s.stream,
                 "compressed input: the video stream to read, by FFmpeg's stream index (default: the first video stream)");
  app.add_option("--stream_ref", s.stream_ref, "as --stream, for the reference only");
  app.add_option("--stream_dist", s.stream_dist, "as --stream, for the distorted only");
  app.add_option("--hwdec", s.hwdec,
                 "compressed input: decode on the GPU (NVDEC) into device memory: cuda, none, or auto (default: cuda "
                 "with --backend cuda on one GPU, where the codec allows; else the CPU)");
  app.add_option("--decoder_threads", s.decoder_threads,
                 "compressed input: decoder threads per input (default 0: FFmpeg's choice, one per core)");
  app.add_option("--scale", s.scale,
                 "scale the distorted video before scoring: WxH[:bicubic|bilinear|lanczos] (W or H -1 keeps the "
                 "aspect ratio), or auto (ab-av1's rule, both inputs); the R scaler (libswscale's bit-exact bytes)");
  app.add_flag("--scale_both", s.scale_both, "with --scale WxH, scale the reference too");
  app.add_option("-w,--width", s.width, "width (raw input)");
  app.add_option("-h,--height", s.height, "height (raw input)");
  app.add_option("-p,--pixel_format", s.pix_fmt, "pixel format of raw input: 420, 422 or 444");
  app.add_option("-b,--bitdepth", s.bitdepth, "bit depth of raw input: 8, 10, 12 or 16");
  app.add_option("--feature", s.features, "feature to compute: NAME or NAME=opt=val:opt=val (repeatable)");
  app.add_option("-m,--model", s.models,
                 "VMAF model (repeatable): path=FILE or version=NAME, then :name=NAME, :disable_clip, "
                 ":enable_transform, :FEATURE.OPTION=VALUE (default: version=vmaf_v0.6.1)");
  app.add_option("--model_dir", s.model_dir,
                 "directory searched first for -m version=NAME (then $EXACTVMAF_MODEL_DIR, then the built-in "
                 "models, see --list-models)");
  app.add_option("--threads", s.threads, "worker threads (default 0: one per hardware thread; with cuda, frames in flight, default 4)");
  app.add_option("--read_ahead", s.read_ahead, "frames read ahead per input (default 0: chosen from --threads)");
  app.add_option("--subsample", s.subsample, "output and pool every N-th frame")
      ->check(CLI::Validator(
          [](const std::string& v) {
            unsigned long long n = 1;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            return ec == std::errc() && end == v.data() + v.size() && n == 0 ? "must be at least 1" : "";
          },
          "N >= 1"));
  app.add_option("--frame_cnt", s.frame_cnt, "score at most N frames (0: all)");
  app.add_option("--frame_skip_ref", s.skip_ref, "skip the first N frames of the reference");
  app.add_option("--frame_skip_dist", s.skip_dist, "skip the first N frames of the distorted");
  app.add_option("-o,--output", s.output, "output file (default: standard output)");
  app.add_flag("--xml", s.xml, "XML output (default)");
  app.add_flag("--json", s.json, "JSON output");
  app.add_flag("--csv", s.csv, "CSV output");
  app.add_flag("--sub", s.sub, "subtitle output (libvmaf's --sub)");
  app.add_option("--precision", s.precision, "numbers: legacy (libvmaf's %.6f rule, default), max (%.17g) or N digits");
  app.add_option("--backend", s.backend,
                 "cpu, cuda or auto (default cpu); auto: cuda when a device can run every requested feature, "
                 "else cpu with a warning");
  app.add_option("--gpu", s.gpu,
                 "CUDA device for --backend cuda/auto: an index (default 0), indices separated by commas or all "
                 "(frames spread over them, --threads frames in flight on each)");
  app.add_option("--device_fp64", s.device_fp64,
                 "fp64 islands on the GPU: on (the device's fp64), off (fp32 operations only, for GPUs with slow or "
                 "no fp64; with --backend cpu the CPU runs that arithmetic), auto (off where fp64 is slower than 1/8 "
                 "of fp32; default); same bits in every case");
  app.add_option("--cpu_while_cuda_starts", s.cpu_while_cuda_starts,
                 "on (default): with --backend cuda/auto, up to 4 CPU threads score the first frames while the "
                 "CUDA driver starts (same bits), then hand over to the device (the first 1080p frame ~150 ms "
                 "sooner: docs/cuda.md); off: wait for the device");
  app.add_option("--simd", s.simd, "CPU kernels: auto (best this CPU has), avx512, avx2 or scalar; same bits in every case");
  app.add_flag("--no-simd", s.no_simd, "same as --simd scalar");
  app.add_flag("-q,--quiet", s.quiet, "no progress line and no summary on stderr");
  app.add_flag("-n,--no_prediction", s.no_prediction, "features only, no VMAF prediction (a model's features are still computed)");
  app.add_flag("--list-features", s.list_features, "list features and their options, then exit");
  app.add_flag("--list-models", s.list_models, "list the built-in VMAF models (-m version=NAME), then exit");
}

// One line of a --batch file: its number and its settings.
struct BatchLine {
  std::size_t number = 0;
  Settings settings;
};

// Reads and checks every line of a --batch file before anything runs: each
// non-blank line not starting with '#' holds one pair's arguments (as on the
// command line; quotes keep a path with spaces together). A bad line stops
// the batch here, so a typo in line 57 costs nothing. Returns the lines, or
// prints one error per bad line and returns nullopt.
std::optional<std::vector<BatchLine>> read_batch(const std::string& path) {
  std::FILE* in = path == "-" ? stdin : std::fopen(path.c_str(), "r");
  if (!in) {
    std::fprintf(stderr, "exactvmaf: error: --batch %s: cannot open (%s)\n", path.c_str(), std::strerror(errno));
    return std::nullopt;
  }
  std::vector<BatchLine> lines;
  std::vector<std::string> errors;
  std::string text;
  std::size_t number = 0;
  const auto bad = [&](const std::string& what) {
    errors.push_back(fmt::format("--batch {} line {}: {}", path, number, what));
  };
  for (int c = 0; c != EOF;) {
    text.clear();
    while ((c = std::fgetc(in)) != EOF && c != '\n') text.push_back(static_cast<char>(c));
    if (c == EOF && text.empty()) break;
    ++number;
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos || text[first] == '#') continue;
    BatchLine line;
    line.number = number;
    CLI::App app{"", "exactvmaf"};
    add_options(app, line.settings);
    try {
      std::vector<std::string> args = CLI::detail::split_up(text);
      std::reverse(args.begin(), args.end());
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      bad(e.what());
      continue;
    }
    const Settings& ls = line.settings;
    if (ls.list_features || ls.list_models) {
      bad("--list-features and --list-models are not pairs");
      continue;
    }
    if (ls.output.empty()) {
      bad("-o FILE is needed: each pair of a batch writes its own report");
      continue;
    }
    if (ls.ref_path == "-" || ls.dist_path == "-") {
      bad("an input of a batch cannot be standard input (\"-\")");
      continue;
    }
    for (const BatchLine& earlier : lines)
      if (earlier.settings.output == ls.output)
        bad(fmt::format("-o {} is line {}'s report too", ls.output, earlier.number));
    lines.push_back(std::move(line));
  }
  const bool read_error = std::ferror(in) != 0;
  if (in != stdin) std::fclose(in);
  if (read_error) errors.push_back(fmt::format("--batch {}: read error", path));
  if (errors.empty() && lines.empty()) errors.push_back(fmt::format("--batch {}: no pair in it", path));
  if (!errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "exactvmaf: error: %s\n", e.c_str());
    return std::nullopt;
  }
  return lines;
}

// Runs the pairs of a --batch file in turn in this process (the CUDA driver
// and device context are set up once, not once per pair); a pair that fails is
// reported with its line and the batch goes on. 0 when every pair was
// scored, 1 when one failed, 2 when the file is not valid (nothing ran).
int run_batch(const std::string& path) {
  const auto lines = read_batch(path);
  if (!lines) return 2;
  std::vector<std::size_t> failed;
  const auto t0 = std::chrono::steady_clock::now();
  for (const BatchLine& line : *lines) {
    const Settings& ls = line.settings;
    // The process-wide switches a line may set: back to the defaults first.
    ev::set_simd_limit(ev::SimdLevel::avx512);
    ev::set_fp64_emulation(false);
    if (!ls.quiet)
      std::fprintf(stderr, "exactvmaf: --batch %s line %zu: %s vs %s -> %s\n", path.c_str(), line.number,
                   ls.ref_path.c_str(), ls.dist_path.c_str(), ls.output.c_str());
    std::string error;
    try {
      if (run_cli(ls) != 0) error = "failed";
    } catch (const std::bad_alloc&) {
      error = "out of memory";
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      std::fprintf(stderr, "exactvmaf: error: --batch %s line %zu: %s\n", path.c_str(), line.number, error.c_str());
      failed.push_back(line.number);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed.empty()) {
    std::fprintf(stderr, "exactvmaf: --batch %s: %zu pairs scored in %.2f s\n", path.c_str(), lines->size(), seconds);
    return 0;
  }
  std::string which;
  for (std::size_t n : failed) which += (which.empty() ? "" : ", ") + std::to_string(n);
  std::fprintf(stderr, "exactvmaf: error: --batch %s: %zu of %zu pairs failed (lines %s)\n", path.c_str(),
               failed.size(), lines->size(), which.c_str());
  return 1;
}

// After a CUDA run the process skips its exit handlers: the CUDA runtime's
// teardown of the device context at exit takes ~90 ms, a fifth of a short 4K
// clip's whole time (docs/benchmarks.md). Everything that matters is done by
// then: reports committed (renamed into place), device memory and files
// released by the run; the standard streams are flushed here.
// EXACTVMAF_FULL_EXIT=1 keeps the ordinary exit (for profilers that write
// their data in exit handlers).
int finish(int code) {
  if (!g_scored_on_cuda) return code;
  const char* full = std::getenv("EXACTVMAF_FULL_EXIT");
  if (full && *full && std::strcmp(full, "0") != 0) return code;
  ev::pipeline::startup_mark("exit without CUDA teardown");
  if (std::fflush(stdout) != 0) {
    std::fprintf(stderr, "exactvmaf: error: standard output: %s\n", std::strerror(errno));
    code = 1;
  }
  std::fflush(stderr);
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  CLI::App app{"exactvmaf: VMAF and its features, with the same bits on every backend (numerics R1)", "exactvmaf"};
  add_options(app, s);
  std::string batch;
  app.add_option("--batch", batch,
                 "score many pairs in one process: FILE (or - for standard input) holds one pair's arguments per "
                 "line, each with its own -o; blank lines and lines starting with # are skipped");
  app.add_flag_callback("-v,--version", [] {
    std::printf("exactvmaf %s (numerics %s)\n", ev::version(), ev::kNumerics);
    std::exit(0);
  }, "print the version and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "exactvmaf: error: %s (see --help)\n", e.what());
    return 2;
  }
  if (!batch.empty()) {
    // The pairs' options are on their lines: nothing else on this command line.
    for (const CLI::Option* o : app.get_options())
      if (o->count() > 0 && o->get_name() != "--batch") {
        std::fprintf(stderr, "exactvmaf: error: --batch: %s belongs on the batch file's lines (each line holds all "
                             "the options of its pair)\n", o->get_name().c_str());
        return 2;
      }
    return finish(run_batch(batch));
  }
  try {
    return finish(run_cli(s));
  } catch (const ev::Error& e) {
    std::fprintf(stderr, "exactvmaf: error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "exactvmaf: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exactvmaf: error: %s\n", e.what());
    return 1;
  }
}
