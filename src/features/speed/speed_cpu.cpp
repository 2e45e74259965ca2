// SpEED-QA on the CPU: speed_chroma (speed_chroma_u, _v, _uv) and
// speed_temporal (speed_temporal), libvmaf speed.c at f85a853. The whole
// arithmetic is in speed_math.hpp; this file moves planes through it. Frames
// are independent (speed_temporal reads frame t-1 through the history
// mechanism), so the pipeline runs them on any number of threads.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/simd.hpp"
#include "features/registry.hpp"
#include "features/speed/speed_cuda.hpp"
#include "features/speed/speed_host.hpp"
#include "features/speed/speed_math.hpp"
#include "io/warnings.hpp"
#include "numeric/fp32pair_counts.hpp"

namespace exactvmaf {

namespace speed {

Config make_config(const std::string& feature, const OptionValues& o, unsigned plane_w, unsigned plane_h,
                   unsigned bpc, bool chroma) {
  Config c;
  c.chroma = chroma;
  c.bpc = bpc;
  if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16)
    throw Error(fmt::format("--feature {}: bit depth {} is not supported (8, 10, 12, 16)", feature, bpc));
  const double prescale = o.get_real("speed_prescale");
  c.kernelscale = static_cast<float>(o.get_real("speed_kernelscale"));
  if (!vif_tools::kernelscale_valid(c.kernelscale))
    throw Error(fmt::format("--feature {}: invalid speed_kernelscale {:g}", feature, o.get_real("speed_kernelscale")));
  const std::string& method = o.get_string("speed_prescale_method");
  if (!vif_tools::parse_scale_method(method, c.method))
    throw Error(fmt::format("--feature {}: invalid speed_prescale_method '{}' (nearest, bilinear, bicubic, lanczos4)",
                            feature, method));
  c.dims = make_dims(plane_w, plane_h, prescale);
  if (!dims_valid(c.dims))
    throw Error(fmt::format("--feature {}: image too small: the {} plane is {}x{} ({}x{} after speed_prescale); SpEED "
                            "needs at least 80x80 after speed_prescale",
                            feature, chroma ? "chroma" : "luma", plane_w, plane_h, c.dims.scaled_w, c.dims.scaled_h));
  // ALMOST_EQUAL(prescale, 1.0): upstream then skips the resampling; with
  // sizes that still change, it would filter the unscaled plane with the
  // scaled sizes (reading outside it). Refused.
  const double off = prescale - 1.0;
  c.scale = !((off < 0 ? -off : off) < 1.0e-3);
  if (!c.scale && (c.dims.scaled_w != plane_w || c.dims.scaled_h != plane_h))
    throw Error(fmt::format("--feature {}: speed_prescale {:g} is within 1e-3 of 1 but changes the plane size", feature,
                            prescale));
  if (c.scale && c.dims.scaled_w == plane_w && c.dims.scaled_h == plane_h) c.scale = false;  // upstream's copy
  HostMath m;
  if (c.scale) {
    vif_tools::ScaleTables t = vif_tools::make_scale_tables(c.method, plane_w, plane_h, c.dims.scaled_w, c.dims.scaled_h);
    c.coord_cols = std::move(t.coord_cols);
    c.coord_rows = std::move(t.coord_rows);
    c.lanczos_cols = std::move(t.lanczos_cols);
    c.lanczos_rows = std::move(t.lanczos_rows);
  }
  c.antialias = antialias_filter(c.kernelscale, m);
  c.local_mean = local_mean_filter(c.kernelscale, m);
  if (c.antialias.width / 2 >= static_cast<int>(c.dims.scaled_h) ||
      c.antialias.width / 2 >= static_cast<int>(c.dims.scaled_w) ||
      c.local_mean.width / 2 >= static_cast<int>(c.dims.dec_w) || c.local_mean.width / 2 >= static_cast<int>(c.dims.dec_h))
    throw Error(fmt::format("--feature {}: the plane is too small for speed_kernelscale {:g}", feature,
                            static_cast<double>(c.kernelscale)));
  c.sigma_nn = static_cast<float>(o.get_real("speed_sigma_nn"));
  c.nn_floor = static_cast<float>(o.get_real("speed_nn_floor"));
  c.max_val = o.get_real("speed_max_val");
  c.weight_var_mode = chroma ? static_cast<int>(o.get_int("speed_weight_var_mode")) : 0;
  c.use_ref_diff = chroma ? false : o.get_bool("speed_use_ref_diff");
  c.log2_2pie = rmath::cr_log2(two_pi_e);
  c.base_entropy = base_entropy(c.sigma_nn, c.nn_floor, c.log2_2pie, m);
  return c;
}

void Scratch::resize(const Dims& d) {
  dec.assign(static_cast<std::size_t>(d.dec_w) * d.dec_h, 0.0f);
  resid.assign(static_cast<std::size_t>(d.dec_w) * d.dec_h, 0.0f);
  cov.assign(block_elems * block_elems, 0.0f);
  means.assign(block_elems, 0.0f);
  eig.assign(block_elems, 0.0f);
  y.assign(static_cast<std::size_t>(block_elems) * d.num_blocks, 0.0f);
  x.assign(static_cast<std::size_t>(block_elems) * d.num_blocks, 0.0f);
  qy.assign(static_cast<std::size_t>(block_elems) * d.num_blocks, 0.0f);
  solve = std::make_unique<SolveShared>();
  for (auto* side : {&ref, &dis}) {
    side->entropy.assign(d.num_blocks, 0.0f);
    side->variance.assign(d.num_blocks, 0.0f);
  }
}

namespace {

// picture_copy of plane p of `a` (minus plane p of `b` for speed_temporal's
// differences), read where the filters need it.
template <class Sample>
struct PictureSource {
  const PictureView* a;
  const PictureView* b;  // or null
  unsigned p, bpc;
  float operator()(int y, int x) const {
    float v = sample_to_float(a->row<Sample>(p, static_cast<unsigned>(y))[x], bpc);
    if (b) v = v - sample_to_float(b->row<Sample>(p, static_cast<unsigned>(y))[x], bpc);
    return v;
  }
};

// The prescaled plane, sample by sample (vif_scale_frame_s at one point).
template <class Src>
struct ScaledSource {
  const Src* src;
  const Config* c;
  float operator()(int y, int x) const {
    const Dims& d = c->dims;
    return scaled_sample(c->method, *src, static_cast<int>(d.orig_w), static_cast<int>(d.orig_h),
                         static_cast<int>(d.scaled_w), static_cast<int>(d.scaled_h), x, y, scale_axis_x(*c),
                         scale_axis_y(*c));
  }
};

// filter_and_downscale + est_params of the plane `src` reads, R's doubles
// and functions from the policy M. Returns the singular flag (est_params'
// error) and fills `out`.
template <class M, class Src>
bool plane_params(const Config& c, Scratch& s, const Src& src, PlaneParams& out, bool& no_convergence, M& m) {
  using T = real_of<M>;
  const Dims& d = c.dims;
  // Anti-alias filter at the 16x decimation points only (the filter's
  // windows of two decimation points do not overlap: no work is repeated).
  const int sw = static_cast<int>(d.scaled_w), sh = static_cast<int>(d.scaled_h);
  const ScaledSource<Src> scaled{&src, &c};
  for (unsigned i = 0; i < d.dec_h; ++i)
    for (unsigned j = 0; j < d.dec_w; ++j) {
      const int y = static_cast<int>(i << num_scales), x = static_cast<int>(j << num_scales);
      s.dec[i * d.dec_w + j] = c.scale ? filter_at(c.antialias.taps, c.antialias.width, scaled, sw, sh, y, x)
                                       : filter_at(c.antialias.taps, c.antialias.width, src, sw, sh, y, x);
    }
  // Local mean subtraction (the rows and columns est_params reads).
  const int dw = static_cast<int>(d.dec_w), dh = static_cast<int>(d.dec_h);
  for (unsigned i = 0; i < d.trunc_h; ++i)
    for (unsigned j = 0; j < d.trunc_w; ++j)
      s.resid[i * d.dec_w + j] = s.dec[i * d.dec_w + j] - filter_at(c.local_mean.taps, c.local_mean.width,
                                                                     PlaneRef{s.dec.data(), dw}, dw, dh,
                                                                     static_cast<int>(i), static_cast<int>(j));
  const float* data = s.resid.data();
  const std::ptrdiff_t stride = dw;
  // Step 1: means and the covariance matrix.
  block_means_interleaved(data, stride, d, s.means.data());
  if constexpr (is_sf64<T>)
    covariance_matrix_fp64_free(data, stride, d, s.means.data(), s.cov.data(), m);
  else
    covariance_matrix_interleaved<T>(data, stride, d, s.means.data(), s.cov.data());
  // Step 3: the independent term.
  const unsigned nb = d.num_blocks;
  for (unsigned si = 0; si < block_size; ++si)
    for (unsigned sj = 0; sj < block_size; ++sj)
      for (unsigned i = si; i < d.trunc_h; i += block_size)
        for (unsigned j = sj; j < d.trunc_w; j += block_size)
          s.y[(si * block_size + sj) * nb + ((i - si) / block_size) * d.blocks_x + (j - sj) / block_size] =
              data[i * stride + j];
  // Steps 2 and 4-9 (eigenvalues, K X = Y where K is regular, variances and
  // entropies): the device's solve, as one thread.
  const bool singular = solve_plane(0, 1, [] {}, *s.solve, s.cov.data(), s.y.data(), s.qy.data(), s.x.data(),
                                    s.eig.data(), static_cast<int>(nb), c.sigma_nn, T(c.log2_2pie),
                                    out.variance.data(), out.entropy.data(), m);
  if (s.solve->no_convergence) no_convergence = true;
  return singular;
}

}  // namespace

// speed_extract_score on the two planes already computed into s.ref / s.dis.
template <class M>
float pair_score(const Config& c, const Scratch& s, bool err_ref, bool err_dis, M& m) {
  if (err_ref != err_dis) return 0.0f;
  float score = 0;
  for (unsigned b = 0; b < c.dims.num_blocks; ++b)
    score += block_score(s.ref.entropy[b], s.ref.variance[b], s.dis.entropy[b], s.dis.variance[b], c.base_entropy,
                         c.weight_var_mode, m);
  return frame_score(score, c.dims.num_blocks);
}

float pair_score(const Config& c, const Scratch& s, bool err_ref, bool err_dis) {
  HostMath m;
  return pair_score(c, s, err_ref, err_dis, m);
}

template <class Sample, class M>
void compute_frame_t(const Config& c, Scratch& s, const FrameInput& in, FrameResult& r, M& m) {
  bool no_conv = false;
  if (c.chroma) {
    for (unsigned ch = 0; ch < 2; ++ch) {
      const unsigned p = ch + 1;
      const bool er = plane_params(c, s, PictureSource<Sample>{&in.ref, nullptr, p, c.bpc}, s.ref, no_conv, m);
      const bool ed = plane_params(c, s, PictureSource<Sample>{&in.dist, nullptr, p, c.bpc}, s.dis, no_conv, m);
      r.score[ch] = pair_score(c, s, er, ed, m);
      r.err[ch] = er || ed;
      r.singular = r.singular || r.err[ch];
    }
    r.no_convergence = no_conv;
    return;
  }
  // Upstream: ref = ref[t-1] - ref[t]; dis = dis[t-1] - dis[t] (or - ref[t]
  // with speed_use_ref_diff).
  const PictureView& minus = c.use_ref_diff ? in.ref : in.dist;
  const bool er = plane_params(c, s, PictureSource<Sample>{&in.prev_ref[0], &in.ref, 0, c.bpc}, s.ref, no_conv, m);
  const bool ed = plane_params(c, s, PictureSource<Sample>{&in.prev_dist[0], &minus, 0, c.bpc}, s.dis, no_conv, m);
  r.score[0] = pair_score(c, s, er, ed, m);
  r.err[0] = er || ed;
  r.singular = r.err[0];
  r.no_convergence = no_conv;
}

template <class M>
void compute_frame_with(const Config& c, Scratch& s, const FrameInput& in, FrameResult& r, M& m) {
  if (c.bpc == 8) compute_frame_t<std::uint8_t>(c, s, in, r, m);
  else compute_frame_t<std::uint16_t>(c, s, in, r, m);
}

void compute_frame(const Config& c, Scratch& s, const FrameInput& in, FrameResult& r, bool emulate_fp64) {
  r = FrameResult{};
  if (!c.chroma) {
    if (in.index == 0) return;  // speed_temporal is 0 at frame 0
    if (in.prev_ref.empty() || in.prev_dist.empty())
      throw Error(fmt::format("speed_temporal: frame {} arrived without frame {}", in.index, in.index - 1));
  }
  if (emulate_fp64) {
    // As the fp64-free device kernels: R's doubles in Sf64; a frame whose
    // log2 fast path could not decide is recomputed with R's functions.
    Sf64Math m;
    compute_frame_with(c, s, in, r, m);
    rmath::Fp32PairArith counts;
    counts.islands = m.filtered;
    counts.replays = m.replayed;
    rmath::count_fp64_emulation(counts, m.undecided ? 1 : 0);
    if (!m.undecided) return;
    r = FrameResult{};
  }
  HostMath m;
  compute_frame_with(c, s, in, r, m);
}

void write_outputs(const Config& c, const FrameResult& r, FrameOutput& out) {
  if (!c.chroma) {
    out.set(0, static_cast<double>(r.score[0]));  // not clipped (upstream)
    return;
  }
  const float uv = chroma_uv(r.score[0], r.err[0], r.score[1], r.err[1]);
  out.set(0, clip_max(r.score[0], c.max_val));
  out.set(1, clip_max(r.score[1], c.max_val));
  out.set(2, clip_max(uv, c.max_val));
}

void Warnings::report(const FrameResult& r, std::uint64_t frame) {
  if (r.singular && !singular_.exchange(true))
    io::warn(fmt::format("{}: covariance matrix is singular (first at frame {}); as upstream, its linear system's "
                         "solution is taken as 0 and a score with one singular side is 0 (shown once)",
                         feature_, frame));
  if (r.no_convergence && !no_convergence_.exchange(true))
    io::warn(fmt::format("{}: eigenvalue iteration reached 500 sweeps at frame {} (possible non-convergence, as "
                         "upstream; shown once)",
                         feature_, frame));
}

namespace {

class SpeedWorker final : public FeatureWorker {
 public:
  SpeedWorker(const Config& c, std::shared_ptr<Warnings> w) : c_(c), warnings_(std::move(w)) { s_.resize(c_.dims); }
  void extract(const FrameInput& in, FrameOutput& out) override {
    FrameResult r;
    compute_frame(c_, s_, in, r, fp64_emulation());
    warnings_->report(r, in.index);
    write_outputs(c_, r, out);
  }

 private:
  Config c_;
  std::shared_ptr<Warnings> warnings_;
  Scratch s_;
};

const char* const chroma_names[] = {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"};

class ChromaExtractor final : public FeatureExtractor {
 public:
  explicit ChromaExtractor(const OptionValues& o) : options_(o) {}
  std::vector<std::string> init(const VideoFormat& fmt) override {
    if (fmt.pix_fmt == PixelFormat::yuv400)
      throw Error("--feature speed_chroma: needs chroma planes (the input is 4:0:0)");
    c_ = make_config("speed_chroma", options_, fmt.picture_width(1), fmt.picture_height(1), fmt.bitdepth, true);
    warnings_ = std::make_shared<Warnings>("speed_chroma");
    std::vector<std::string> names;
    for (const char* n : chroma_names) names.push_back(feature_output_name(n, options_));
    return names;
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<SpeedWorker>(c_, warnings_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return speed::make_cuda_worker(c_, warnings_); }
#endif

 private:
  OptionValues options_;
  Config c_;
  std::shared_ptr<Warnings> warnings_;
};

class TemporalExtractor final : public FeatureExtractor {
 public:
  explicit TemporalExtractor(const OptionValues& o) : options_(o) {}
  std::vector<std::string> init(const VideoFormat& fmt) override {
    c_ = make_config("speed_temporal", options_, fmt.picture_width(0), fmt.picture_height(0), fmt.bitdepth, false);
    warnings_ = std::make_shared<Warnings>("speed_temporal");
    return {feature_output_name("speed_temporal", options_)};
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<SpeedWorker>(c_, warnings_); }
  unsigned history() const override { return 1; }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return speed::make_cuda_worker(c_, warnings_); }
#endif

 private:
  OptionValues options_;
  Config c_;
  std::shared_ptr<Warnings> warnings_;
};

std::vector<OptionSpec> common_options() {
  return {
      {"speed_kernelscale", OptionType::real, 1.0, 0.1, 4.0,
       "scaling factor for the gaussian kernel (2.0 means multiplying the standard deviation by 2 and enlarge the "
       "kernel size accordingly",
       true, "ks"},
      {"speed_prescale", OptionType::real, 1.0, 0.1, 4.0,
       "scaling factor for the frame (2.0 means making the image twice as large on each dimension)", true, "ps"},
      {"speed_prescale_method", OptionType::string, std::string("nearest"), 0, 0,
       "scaling method for the frame, supported options: [nearest, bilinear, bicubic, lanczos4]", true, "psm"},
      {"speed_sigma_nn", OptionType::real, 0.29, 0.1, 2.0, "standard deviation of neural noise", true, "snn"},
      {"speed_nn_floor", OptionType::real, 0.0, 0.0, 1.0, "neural noise floor, expressed in percentage of sigma_nn",
       true, "nnf"},
      {"speed_max_val", OptionType::real, 1000.0, 0.0, 1000.0,
       "maximum value allowed; larger values will be clipped to this value", true, "mxv"},
  };
}

}  // namespace
}  // namespace speed

FeatureInfo speed_chroma_feature_info() {
  FeatureInfo f;
  f.name = "speed_chroma";
  f.help = "SpEED-QA of the chroma planes (speed_chroma_u, speed_chroma_v, speed_chroma_uv)";
  f.options = speed::common_options();
  f.options.push_back({"speed_weight_var_mode", OptionType::integer, std::int64_t{0}, 0, 6,
                       "different approaches to perform variance-absed weighting", true, "wvm"});
  f.provided = {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"};
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<speed::ChromaExtractor>(o); };
  return f;
}

FeatureInfo speed_temporal_feature_info() {
  FeatureInfo f;
  f.name = "speed_temporal";
  f.help = "SpEED-QA of the luma frame differences (speed_temporal; 0 at frame 0)";
  f.options = speed::common_options();
  f.options.push_back(
      {"speed_use_ref_diff", OptionType::boolean, false, 0, 0, "debug mode: enable additional output", true, "urd"});
  f.provided = {"speed_temporal"};
  f.every_frame = true;  // upstream flags it TEMPORAL
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<speed::TemporalExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
