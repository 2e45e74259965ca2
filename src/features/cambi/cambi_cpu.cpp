// cambi (metric cambi; with full_ref cambi_source and cambi_full_reference)
// on the CPU. The arithmetic is cambi_math.hpp's; this file holds the host
// parts every backend shares (cambi_host.hpp: configuration, luminance
// tables, outputs, heat maps) and the CPU worker, which moves one picture at
// a time through the preprocessing, the mask and the five scales with the
// row kernels of cambi_simd.hpp. Frames are independent: the pipeline runs
// them on any number of threads, one worker (scratch buffers) per thread.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exactvmaf/error.hpp"
#include "features/cambi/cambi_cuda.hpp"
#include "features/cambi/cambi_host.hpp"
#include "features/cambi/cambi_math.hpp"
#include "features/cambi/cambi_simd.hpp"
#include "features/registry.hpp"
#include "io/warnings.hpp"
#include "numeric/cr_pow.hpp"

namespace exactvmaf {

namespace cambi {

// ---- luminance -------------------------------------------------------------------

namespace {

// The 10-bit limited range luminance_tools.c normalises with.
constexpr int luma_foot = 64, luma_head = 940, luma_max = 1023;

}  // namespace

double bt1886_eotf(double v) {
  // BT.1886 with Lw = 300, Lb = 0.01, gamma 2.4 (upstream's constant
  // expressions, which its compiler folds with correct rounding).
  const double inv_gamma = 1.0 / 2.4;
  const double lw = rmath::cr_pow(300.0, inv_gamma), lb = rmath::cr_pow(0.01, inv_gamma);
  const double a = rmath::cr_pow(lw - lb, 2.4);
  const double b = lb / (lw - lb);
  const double x = v + b;
  return a * rmath::cr_pow(x > 0 ? x : 0.0, 2.4);
}

double pq_eotf(double v) {
  const double m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
  const double num = rmath::cr_pow(v, 1.0 / m2) - c1;
  const double num_clipped = num > 0 ? num : 0.0;
  const double den = c2 - c3 * rmath::cr_pow(v, 1.0 / m2);
  return 10000.0 * rmath::cr_pow(num_clipped / den, 1.0 / m1);
}

double luminance(int sample, Eotf eotf) {
  const int clipped = sample < luma_foot ? luma_foot : (sample > luma_head ? luma_head : sample);
  const double normalized = static_cast<double>(clipped - luma_foot) / static_cast<double>(luma_head - luma_foot);
  return eotf == Eotf::pq ? pq_eotf(normalized) : bt1886_eotf(normalized);
}

namespace {

bool tvi_condition(int sample, int diff, double tvi_threshold, Eotf eotf) {
  const double mean = luminance(sample, eotf);
  const double stepped = luminance(sample + diff, eotf);
  return stepped - mean > tvi_threshold * mean;
}

enum class Bisect { too_small, correct, too_big };

Bisect tvi_probe(int sample, int diff, double tvi_threshold, Eotf eotf) {
  if (!tvi_condition(sample, diff, tvi_threshold, eotf)) return Bisect::too_big;
  if (tvi_condition(sample + 1, diff, tvi_threshold, eotf)) return Bisect::too_small;
  return Bisect::correct;
}

}  // namespace

int tvi_for_diff(int diff, double tvi_threshold, Eotf eotf) {
  int foot = luma_foot;
  int head = luma_head - diff - 1;
  Bisect b = tvi_probe(foot, diff, tvi_threshold, eotf);
  if (b == Bisect::too_big) return 0;
  if (b == Bisect::correct) return foot;
  b = tvi_probe(head, diff, tvi_threshold, eotf);
  if (b == Bisect::too_small) return luma_max;
  if (b == Bisect::correct) return head;
  // foot is too small and head too big, so they never meet.
  while (true) {
    const int mid = foot + (head - foot) / 2;
    b = tvi_probe(mid, diff, tvi_threshold, eotf);
    if (b == Bisect::correct) return mid;
    if (b == Bisect::too_big) head = mid;
    else foot = mid;
  }
}

int vlt_luma(double threshold, Eotf eotf) {
  // Above the head the luminance stays at its value there.
  for (int s = luma_foot; s <= luma_head; ++s)
    if (!(luminance(s, eotf) < threshold)) return s == luma_foot ? 0 : s;
  return -1;
}

// ---- configuration -----------------------------------------------------------------

namespace {

Error option_error(const std::string& what) { return Error("--feature cambi: " + what); }

// The two-valued options libvmaf gives two names (topk / cambi_topk, eotf /
// cambi_eotf): upstream takes the first when it is not the default, else the
// second; both set to different values is refused here.
template <class T>
T aliased(const OptionValues& o, const char* first, const char* second, const T& a, const T& b) {
  if (!o.is_default(first) && !o.is_default(second) && a != b)
    throw option_error(fmt::format("{} and {} are two names of one option and were given different values", first,
                                   second));
  return o.is_default(first) ? b : a;
}

void setup_maps(PictureSetup& ps, unsigned in_w, unsigned in_h) {
  if (ps.w == in_w && ps.h == in_h) return;
  ps.col_map.resize(ps.w);
  ps.row_map.resize(ps.h);
  const bool cols = nearest_indices(in_w, ps.w, ps.col_map.data());
  const bool rows = nearest_indices(in_h, ps.h, ps.row_map.data());
  if (!cols || !rows)
    io::warn(fmt::format("cambi: resampling {}x{} to {}x{}, upstream reads one sample past the last {}; the last {} "
                         "is used (cambi may differ from upstream)",
                         in_w, in_h, ps.w, ps.h, cols ? "row" : "column", cols ? "row" : "column"));
}

void check_scales(const PictureSetup& ps, bool high_res_speedup, const char* what) {
  unsigned w = ps.w, h = ps.h;
  for (int scale = 0; scale < num_scales; ++scale) {
    if (scale > 0 || high_res_speedup) {
      w = half_up(w);
      h = half_up(h);
    }
    if (!scale_fits_window(w, h, ps.window))
      throw option_error(fmt::format("the {} size {}x{} is too narrow for its window of {} pixels: scale {} is {}x{} "
                                     "(upstream reads outside the picture there)",
                                     what, ps.w, ps.h, ps.window, scale, w, h));
  }
}

}  // namespace

Config make_config(const OptionValues& o, const VideoFormat& fmt) {
  Config c;
  c.in_w = fmt.width;
  c.in_h = fmt.height;
  c.bpc = fmt.bitdepth;
  if (c.bpc < 8 || c.bpc > 16) throw option_error(fmt::format("bit depth {} is not supported (8 to 16)", c.bpc));
  c.enc_bitdepth = o.get_int("enc_bitdepth") != 0 ? static_cast<unsigned>(o.get_int("enc_bitdepth")) : c.bpc;
  c.full_ref = o.get_bool("full_ref");
  c.max_val = o.get_real("cambi_max_val");
  c.topk = aliased(o, "topk", "cambi_topk", o.get_real("topk"), o.get_real("cambi_topk"));
  const std::string eotf_name =
      aliased(o, "cambi_eotf", "eotf", o.get_string("cambi_eotf"), o.get_string("eotf"));
  Eotf eotf = Eotf::bt1886;
  if (eotf_name == "pq") eotf = Eotf::pq;
  else if (eotf_name != "bt1886") throw option_error(fmt::format("unknown EOTF '{}' (bt1886, pq)", eotf_name));

  // Sizes: the encode (the distorted picture is scored at it) and the source
  // (the reference, full_ref only). A size needs both of its options.
  const auto enc_w = static_cast<unsigned>(o.get_int("enc_width")), enc_h = static_cast<unsigned>(o.get_int("enc_height"));
  const auto src_w = static_cast<unsigned>(o.get_int("src_width")), src_h = static_cast<unsigned>(o.get_int("src_height"));
  if ((enc_w == 0) != (enc_h == 0)) throw option_error("enc_width and enc_height must be given together");
  if ((src_w == 0) != (src_h == 0)) throw option_error("src_width and src_height must be given together");
  if (src_w != 0 && !c.full_ref) throw option_error("src_width and src_height are used only with full_ref=true");
  c.enc.w = enc_w ? enc_w : c.in_w;
  c.enc.h = enc_h ? enc_h : c.in_h;
  // Upstream: an encode larger than the input was downscaled to it: no upscaling.
  if (c.enc.w > c.in_w || c.enc.h > c.in_h) {
    c.enc.w = c.in_w;
    c.enc.h = c.in_h;
  }
  c.src.w = src_w ? src_w : c.in_w;
  c.src.h = src_h ? src_h : c.in_h;
  if (c.enc.w < min_size && c.enc.h < min_size)
    throw option_error(fmt::format("the picture is {}x{}; cambi needs a width or height of at least {}", c.enc.w,
                                   c.enc.h, min_size));
  if (c.full_ref) {
    if (c.src.w < min_size && c.src.h < min_size)
      throw option_error(fmt::format("the source size {}x{} needs a width or height of at least {}", c.src.w, c.src.h,
                                     min_size));
    if ((c.src.w > c.enc.w && c.src.h < c.enc.h) || (c.src.w < c.enc.w && c.src.h > c.enc.h))
      throw option_error(fmt::format("the source size {}x{} and the encode size {}x{} have different orientations",
                                     c.src.w, c.src.h, c.enc.w, c.enc.h));
  }

  const auto hrs = o.get_int("cambi_high_res_speedup");
  if (hrs != 0 && hrs != 1080 && hrs != 1440 && hrs != 2160)
    throw option_error(fmt::format("cambi_high_res_speedup={} (0, 1080, 1440 or 2160)", hrs));
  const auto enc_pixels = static_cast<std::uint64_t>(c.enc.w) * c.enc.h;
  c.high_res_speedup = (hrs == 1080 && enc_pixels >= 1920ull * 1080) || (hrs == 1440 && enc_pixels >= 2560ull * 1440) ||
                       (hrs == 2160 && enc_pixels >= 3840ull * 2160);

  const int window_size = static_cast<int>(o.get_int("window_size"));
  c.enc.window = adjusted_window(window_size, c.enc.w, c.enc.h, c.high_res_speedup);
  c.src.window = adjusted_window(window_size, c.src.w, c.src.h, c.high_res_speedup);
  for (const PictureSetup* ps : {&c.enc, &c.src}) {
    if (ps == &c.src && !c.full_ref) continue;  // upstream checks the unused source window too
    if (window_pixels(ps->window) >= static_cast<unsigned>(reciprocal_table_size))
      throw option_error(fmt::format("window_size {} is too large for {}x{}: the adjusted window is {} pixels wide "
                                     "(at most 65)",
                                     window_size, ps->w, ps->h, ps->window));
  }
  check_scales(c.enc, c.high_res_speedup, "encode");
  if (c.full_ref) check_scales(c.src, c.high_res_speedup, "source");

  // The luminance tables.
  Params& p = c.params;
  p.num_diffs = 1 << o.get_int("max_log_contrast");
  const double tvi_threshold = o.get_real("tvi_threshold");
  for (int d = 0; d < p.num_diffs; ++d)
    p.tvi_for_diff[d] = static_cast<u16>(tvi_for_diff(d + 1, tvi_threshold, eotf) + p.num_diffs);
  const double vlt = o.get_real("cambi_vis_lum_threshold");
  const int vl = vlt_luma(vlt, eotf);
  if (vl < 0)
    throw option_error(fmt::format("cambi_vis_lum_threshold={:g} is above the {} peak luminance {:.17g} (upstream "
                                   "never returns)",
                                   vlt, eotf_name, luminance(luma_head, eotf)));
  p.vlt_luma = static_cast<u16>(vl);
  finish_params(p);
  if (!band_covers_reads(p))
    throw option_error(fmt::format("tvi_threshold={:g}: its thresholds do not grow with the contrast step "
                                   "(upstream would read outside its histograms)",
                                   tvi_threshold));

  setup_maps(c.enc, c.in_w, c.in_h);
  if (c.full_ref) setup_maps(c.src, c.in_w, c.in_h);
  c.alloc_w = c.full_ref ? std::max(c.enc.w, c.src.w) : c.enc.w;
  c.alloc_h = c.full_ref ? std::max(c.enc.h, c.src.h) : c.enc.h;

  const std::string& heatmaps = o.get_string("heatmaps_path");
  if (!heatmaps.empty()) c.heatmaps = std::make_shared<HeatmapFiles>(heatmaps, c.enc.w, c.enc.h);
  return c;
}

std::vector<std::string> output_names(const Config& c, const OptionValues& o) {
  std::vector<std::string> names = {feature_output_name("cambi", o)};
  if (c.full_ref) {
    // Not among the extractor's provided features: libvmaf adds no suffix.
    names.push_back("cambi_source");
    names.push_back("cambi_full_reference");
  }
  return names;
}

void write_outputs(const Config& c, double dist_score, double src_score, FrameOutput& out) {
  out.set(0, clip_max(dist_score, c.max_val));
  if (!c.full_ref) return;
  out.set(1, clip_max(src_score, c.max_val));
  out.set(2, clip_max(full_reference(dist_score, src_score), c.max_val));
}

namespace {

template <class Sample>
void check_range_t(const PictureView& pic, unsigned bpc, std::uint64_t frame, const char* which) {
  const unsigned max = (1u << bpc) - 1u;
  for (unsigned y = 0; y < pic.h(0); ++y) {
    const Sample* row = pic.row<Sample>(0, y);
    unsigned m = 0;
    for (unsigned x = 0; x < pic.w(0); ++x) m = row[x] > m ? row[x] : m;
    if (m > max)
      throw Error(fmt::format("cambi: frame {} of the {} input has a luma sample of {}, above the {}-bit maximum {}",
                              frame, which, m, bpc, max));
  }
}

}  // namespace

void check_sample_range(const PictureView& pic, unsigned bpc, std::uint64_t frame, const char* which) {
  if (bpc == 8 || bpc == 16) return;  // every stored value is valid
  check_range_t<u16>(pic, bpc, frame, which);
}

// ---- heat maps ------------------------------------------------------------------

namespace {

// mkdir -p with upstream's mode 0770 for the directories it creates.
void make_dirs(const std::string& dir) {
  for (std::size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0770) != 0 && errno != EEXIST)
      throw Error(fmt::format("--feature cambi: heatmaps_path {}: cannot create {}: {}", dir, part, std::strerror(errno)));
  }
}

}  // namespace

HeatmapFiles::HeatmapFiles(const std::string& dir, unsigned enc_w, unsigned enc_h) {
  for (int& fd : fd_) fd = -1;
  make_dirs(dir);
  unsigned w = enc_w, h = enc_h;
  for (int s = 0; s < num_scales; ++s) {
    paths_[s] = fmt::format("{}/cambi_heatmap_scale_{}_{}x{}_16b.gray", dir, s, w, h);
    fd_[s] = ::open(paths_[s].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_[s] < 0) {
      const std::string why = std::strerror(errno);
      for (int t = 0; t < s; ++t) ::close(fd_[t]);
      throw Error(fmt::format("--feature cambi: heatmaps_path: cannot open {}: {}", paths_[s], why));
    }
    w = half_up(w);
    h = half_up(h);
  }
}

HeatmapFiles::~HeatmapFiles() {
  for (int fd : fd_)
    if (fd >= 0) ::close(fd);
}

void HeatmapFiles::write(int scale, std::uint64_t frame, unsigned w, unsigned h, const float* c_values,
                         double heat_scale) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(w) * h * 2);
  for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
    const u16 v = heatmap_sample_f64(heat_scale, c_values[i]);
    bytes[2 * i] = static_cast<unsigned char>(v & 0xffu);
    bytes[2 * i + 1] = static_cast<unsigned char>(v >> 8);
  }
  const auto offset = static_cast<off_t>(frame * bytes.size());
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_[scale], bytes.data() + done, bytes.size() - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(fmt::format("cambi: cannot write {}: {}", paths_[scale], n < 0 ? std::strerror(errno) : "no space"));
    done += static_cast<std::size_t>(n);
  }
}

// ---- the CPU worker -------------------------------------------------------------

namespace {

// Room after each buffer for the SIMD kernels' reads past a row's end.
constexpr std::size_t slack = 64;

struct Scratch {
  std::size_t stride = 0;  // samples per image/mask row
  std::vector<u16> img, mask, deriv, column_counts, mode_rows, hist;
  std::vector<float> c;
  std::vector<CountRun> runs;
  std::vector<u32> high, low;

  explicit Scratch(const Config& cfg) {
    stride = cfg.alloc_w;
    const std::size_t plane = stride * cfg.alloc_h + slack;
    img.assign(plane, 0);
    mask.assign(plane, 0);
    deriv.assign(8 * stride + slack, 0);
    column_counts.assign(stride + slack, 0);
    mode_rows.assign(3 * stride + slack, 0);
    // The largest scale: scale 0, already halved with the speed-up.
    const std::size_t w0 = cfg.high_res_speedup ? half_up(cfg.alloc_w) : cfg.alloc_w;
    const std::size_t h0 = cfg.high_res_speedup ? half_up(cfg.alloc_h) : cfg.alloc_h;
    hist.assign(cfg.params.v_band_size * w0 + slack, 0);
    c.assign(w0 * h0 + slack, 0.0f);
    runs.resize(2 * w0);
    high.assign(65536, 0);
    low.assign(65536, 0);
  }
  u16* img_row(unsigned i) { return img.data() + i * stride; }
  u16* mask_row(unsigned i) { return mask.data() + i * stride; }
};

template <class Sample>
void preprocess_t(const Config& c, const PictureSetup& ps, const PictureView& pic, Scratch& s) {
  const u32* col_map = ps.col_map.empty() ? nullptr : ps.col_map.data();
  for (unsigned i = 0; i < ps.h; ++i)
    convert_row(pic.row<Sample>(0, ps.row_map.empty() ? i : ps.row_map[i]), col_map, ps.w, c.bpc, s.img_row(i));
  if (c.enc_bitdepth < 10) {
    for (unsigned i = 0; i + 1 < ps.h; ++i) anti_dither_row(s.img_row(i), s.img_row(i + 1), ps.w);
    anti_dither_last_row(s.img_row(ps.h - 1), ps.w);
  }
}

void preprocess(const Config& c, const PictureSetup& ps, const PictureView& pic, Scratch& s) {
  if (c.bpc == 8) preprocess_t<std::uint8_t>(c, ps, pic, s);
  else preprocess_t<std::uint16_t>(c, ps, pic, s);
}

// The mask rows from the flags of the 7 rows around each (a ring of 8
// flag rows and their per-column counts).
void spatial_mask(const Kernels& k, unsigned w, unsigned h, Scratch& s) {
  constexpr unsigned pad = mask_filter_size / 2;
  const u32 index = mask_index(w, h);
  u16* counts = s.column_counts.data();
  std::fill(counts, counts + w, u16{0});
  auto flags = [&](unsigned r) { return s.deriv.data() + (r % 8) * s.stride; };
  auto add_flags = [&](unsigned r) {
    k.derivative_row(s.img.data(), static_cast<std::ptrdiff_t>(s.stride), w, h, r, flags(r));
    const u16* f = flags(r);
    for (unsigned j = 0; j < w; ++j) counts[j] = static_cast<u16>(counts[j] + f[j]);
  };
  for (unsigned r = 0; r < pad && r < h; ++r) add_flags(r);
  for (unsigned i = 0; i < h; ++i) {
    if (i + pad < h) add_flags(i + pad);
    if (i >= pad + 1) {
      const u16* f = flags(i - pad - 1);
      for (unsigned j = 0; j < w; ++j) counts[j] = static_cast<u16>(counts[j] - f[j]);
    }
    mask_row_from_column_counts(counts, w, index, s.mask_row(i));
  }
}

// filter_mode in place: the horizontal results of three rows in a ring.
void mode_filter(const Kernels& k, unsigned w, unsigned h, Scratch& s) {
  auto ring = [&](unsigned i) { return s.mode_rows.data() + (i % 3) * s.stride; };
  for (unsigned i = 0; i < h; ++i) {
    k.mode_horizontal_row(s.img_row(i), w, ring(i));
    if (i >= 2) k.mode_vertical_row(ring(i - 2), ring(i - 1), ring(i), w, s.img_row(i - 1));
  }
}

// The c-values of a w x h scale into s.c (row-major, w per row).
void c_values(const Kernels& k, const Params& p, unsigned w, unsigned h, int window, Scratch& s) {
  const int pad = window >> 1;
  u16* hist = s.hist.data();
  std::fill(hist, hist + static_cast<std::size_t>(p.v_band_size) * w, u16{0});
  CountRun* runs = s.runs.data();
  const unsigned first = std::min(static_cast<unsigned>(pad), h - 1);
  for (unsigned r = 0; r <= first; ++r)
    k.apply_runs(hist, runs, row_runs(s.img_row(r), s.mask_row(r), w, p, false, runs), pad, w, p);
  k.c_values_row(hist, s.img_row(0), s.mask_row(0), w, p, reciprocal_table, s.c.data());
  for (unsigned i = 1; i < h; ++i) {
    const int out = static_cast<int>(i) - pad - 1;
    const unsigned in = i + static_cast<unsigned>(pad);
    unsigned n = 0;
    if (out >= 0 && in < h) {
      const auto o = static_cast<unsigned>(out);
      n = slide_runs(s.img_row(o), s.mask_row(o), s.img_row(in), s.mask_row(in), w, p, runs);
    } else if (out >= 0) {
      const auto o = static_cast<unsigned>(out);
      n = row_runs(s.img_row(o), s.mask_row(o), w, p, true, runs);
    } else if (in < h) {
      n = row_runs(s.img_row(in), s.mask_row(in), w, p, false, runs);
    }
    k.apply_runs(hist, runs, n, pad, w, p);
    k.c_values_row(hist, s.img_row(i), s.mask_row(i), w, p, reciprocal_table, s.c.data() + static_cast<std::size_t>(i) * w);
  }
}

// cambi_score of the preprocessed picture in s.img.
double score_picture(const Config& c, const PictureSetup& ps, const Kernels& k, Scratch& s, HeatmapFiles* heatmaps,
                     std::uint64_t frame) {
  spatial_mask(k, ps.w, ps.h, s);
  const double heat_scale = heatmaps ? heatmap_scale(c.params, ps.window) : 0.0;
  double pooled[num_scales];
  unsigned w = ps.w, h = ps.h;
  for (int scale = 0; scale < num_scales; ++scale) {
    if (scale > 0 || c.high_res_speedup) {
      w = half_up(w);
      h = half_up(h);
      for (unsigned i = 0; i < h; ++i) {
        k.decimate_row(s.img_row(2 * i), w, s.img_row(i));
        k.decimate_row(s.mask_row(2 * i), w, s.mask_row(i));
      }
    }
    mode_filter(k, w, h, s);
    c_values(k, c.params, w, h, ps.window, s);
    if (heatmaps) heatmaps->write(scale, frame, w, h, s.c.data(), heat_scale);
    pooled[scale] = topk_pool(s.c.data(), w * h, c.topk, s.high.data(), s.low.data());
  }
  return frame_score(pooled, ps.window);
}

class CambiWorker final : public FeatureWorker {
 public:
  explicit CambiWorker(const Config& c) : c_(c), k_(kernels_for(simd_level())), s_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    check_sample_range(in.dist, c_.bpc, in.index, "distorted");
    preprocess(c_, c_.enc, in.dist, s_);
    const double dist = score_picture(c_, c_.enc, k_, s_, c_.heatmaps.get(), in.index);
    double src = 0.0;
    if (c_.full_ref) {
      check_sample_range(in.ref, c_.bpc, in.index, "reference");
      preprocess(c_, c_.src, in.ref, s_);
      src = score_picture(c_, c_.src, k_, s_, nullptr, in.index);
    }
    write_outputs(c_, dist, src, out);
  }

 private:
  const Config& c_;
  const Kernels& k_;
  Scratch s_;
};

class CambiExtractor final : public FeatureExtractor {
 public:
  explicit CambiExtractor(const OptionValues& o) : options_(o) {}
  std::vector<std::string> init(const VideoFormat& fmt) override {
    c_ = make_config(options_, fmt);
    return output_names(c_, options_);
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<CambiWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return cambi::make_cuda_worker(c_); }
#endif

 private:
  OptionValues options_;
  Config c_;
};

}  // namespace
}  // namespace cambi

FeatureInfo cambi_feature_info() {
  FeatureInfo f;
  f.name = "cambi";
  f.help = "CAMBI banding score of the distorted luma (cambi; with full_ref also cambi_source and "
           "cambi_full_reference)";
  f.options = {
      {"cambi_max_val", OptionType::real, 1000.0, 0.0, 1000.0, "largest value reported (larger ones are clipped)",
       true, "cmxv"},
      {"enc_width", OptionType::integer, std::int64_t{0}, 180, 7680,
       "width the distorted picture is scored at (with enc_height; 0: the input's; never above it)", true, "encw"},
      {"enc_height", OptionType::integer, std::int64_t{0}, 150, 7680,
       "height the distorted picture is scored at (with enc_width)", true, "ench"},
      {"enc_bitdepth", OptionType::integer, std::int64_t{0}, 6, 16,
       "bit depth of the encode (0: the input's); below 10 the picture is anti-dithered", true, "encbd"},
      {"src_width", OptionType::integer, std::int64_t{0}, 320, 7680,
       "width the reference is scored at with full_ref (with src_height; 0: the input's)", true, "srcw"},
      {"src_height", OptionType::integer, std::int64_t{0}, 200, 4320,
       "height the reference is scored at with full_ref (with src_width)", true, "srch"},
      {"window_size", OptionType::integer, std::int64_t{65}, 15, 127,
       "window at 4K (65: about one degree); scaled with the picture's width + height", true, "ws"},
      {"topk", OptionType::real, 0.6, 0.0001, 1.0, "fraction of the largest c-values each scale pools", true},
      {"cambi_topk", OptionType::real, 0.6, 0.0001, 1.0, "the same as topk (topk wins when both are set)", true,
       "ctpk"},
      {"tvi_threshold", OptionType::real, 0.019, 0.0001, 1.0,
       "visibility threshold: a luminance step dL is visible above tvi_threshold * L", true, "tvit"},
      {"cambi_vis_lum_threshold", OptionType::real, 0.0, 0.0, 300.0,
       "luminance (cd/m^2) below which banding is taken as invisible", true, "vlt"},
      {"max_log_contrast", OptionType::integer, std::int64_t{2}, 0, 5,
       "largest contrast step, log2 of 10-bit levels (2: 4 levels, one 8-bit level)", true, "mlc"},
      {"heatmaps_path", OptionType::string, std::string(), 0, 0,
       "directory to write the per-scale c-value maps of the distorted input into (16-bit .gray files)"},
      {"full_ref", OptionType::boolean, false, 0, 0,
       "also score the reference (cambi_source) and report max(0, cambi - cambi_source) (cambi_full_reference)"},
      {"eotf", OptionType::string, std::string("bt1886"), 0, 0, "EOTF of the visibility thresholds: bt1886 or pq",
       true},
      {"cambi_eotf", OptionType::string, std::string("bt1886"), 0, 0,
       "the same as eotf (cambi_eotf wins when both are set)", true, "ceot"},
      {"cambi_high_res_speedup", OptionType::integer, std::int64_t{0}, 0, 2160,
       "from this encode size on (1080, 1440 or 2160; 0: never) scores at half size after the mask (faster, a "
       "little different)",
       true, "hrs"},
  };
  f.provided = {"cambi"};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<cambi::CambiExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
