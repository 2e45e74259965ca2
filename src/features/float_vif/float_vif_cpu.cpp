// float_vif on the CPU: luma only, as upstream. The plane is converted to
// float (and prescaled) once per frame; each scale is then streamed a row at
// a time: the vertical passes of the five filtered quantities into rows
// padded with their mirrored borders, the horizontal passes, and the
// statistic of every sample (float_vif_math.hpp). The loops run across
// samples, so the compiler's vectors never reassociate one sample's sum.
#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/simd.hpp"
#include "features/common/filter_rows.hpp"
#include "features/common/separable_filter.hpp"
#include "features/float_vif/float_vif_cuda.hpp"
#include "features/float_vif/float_vif_host.hpp"
#include "features/float_vif/float_vif_math.hpp"
#include "features/registry.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/fp32pair_counts.hpp"

namespace exactvmaf {

namespace float_vif {

namespace {
const char* const base_names[] = {"vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3"};
const char* const debug_names[] = {"vif",           "vif_num",        "vif_den",        "vif_num_scale0",
                                   "vif_den_scale0", "vif_num_scale1", "vif_den_scale1", "vif_num_scale2",
                                   "vif_den_scale2", "vif_num_scale3", "vif_den_scale3"};
}  // namespace

std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt) {
  c.bpc = fmt.bitdepth;
  if (c.bpc != 8 && c.bpc != 10 && c.bpc != 12 && c.bpc != 16)
    throw Error(fmt::format("--feature float_vif: bit depth {} is not supported (8, 10, 12, 16)", c.bpc));
  c.w = fmt.picture_width(0);
  c.h = fmt.picture_height(0);
  c.debug = o.get_bool("debug");
  c.stat = make_stat_params(o.get_real("vif_enhn_gain_limit"), o.get_real("vif_sigma_nsq"));
  c.score.skip_scale0 = o.get_bool("vif_skip_scale0");
  for (int s = 1; s < num_scales; ++s) c.score.min_val[s] = o.get_real(fmt::format("vif_scale{}_min_val", s));
  const double ks_option = o.get_real("vif_kernelscale");
  const auto ks = static_cast<float>(ks_option);
  if (!vif_tools::kernelscale_valid(ks))
    throw Error(fmt::format("--feature float_vif: invalid vif_kernelscale {:g} (upstream's list: 1, 0.5, 1.5, 2, "
                            "2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, "
                            "1.06667, 0.711111, 0.74074, 1.111111)",
                            ks_option));
  const std::string& method = o.get_string("vif_prescale_method");
  if (!vif_tools::parse_scale_method(method, c.method))
    throw Error(fmt::format(
        "--feature float_vif: invalid vif_prescale_method '{}' (nearest, bilinear, bicubic, lanczos4)", method));
  const double ps = o.get_real("vif_prescale");
  const int sw = static_cast<int>(static_cast<double>(c.w) * ps + 0.5);
  const int sh = static_cast<int>(static_cast<double>(c.h) * ps + 0.5);
  c.plane_w[0] = static_cast<unsigned>(sw);
  c.plane_h[0] = static_cast<unsigned>(sh);
  c.prescale = c.plane_w[0] != c.w || c.plane_h[0] != c.h;
  if (c.prescale) c.tables = vif_tools::make_scale_tables(c.method, c.w, c.h, c.plane_w[0], c.plane_h[0]);
  rmath::HostMathPolicy m;
  for (int s = 0; s < num_scales; ++s) {
    c.filter[s] = vif_tools::vif_filter(s, ks, m);
    if (s > 0) {
      c.plane_w[s] = c.plane_w[s - 1] / 2;
      c.plane_h[s] = c.plane_h[s - 1] / 2;
    }
    // Mirrored taps stay inside a plane only when the filter's radius is
    // below its size (upstream reads outside it otherwise). Scale 0's
    // filter runs only when that scale is computed.
    const auto radius = static_cast<unsigned>(c.filter[s].width / 2);
    if ((s > 0 || !c.score.skip_scale0) && (c.plane_w[s] <= radius || c.plane_h[s] <= radius))
      throw Error(fmt::format("--feature float_vif: the {}x{} luma plane{} is too small: scale {} is {}x{} and its "
                              "{}-tap filter needs more than {} samples each way",
                              c.w, c.h, c.prescale ? fmt::format(" ({}x{} after vif_prescale)", sw, sh) : "", s,
                              c.plane_w[s], c.plane_h[s], c.filter[s].width, radius));
  }
  c.names.clear();
  for (const char* b : base_names) c.names.push_back(feature_output_name(b, o));
  if (c.debug)
    for (const char* b : debug_names) c.names.push_back(feature_output_name(b, o));
  return c.names;
}

namespace {

// picture_copy: the luma plane as floats (value / scaler - 128).
template <class Sample>
void load_plane(const PictureView& pic, unsigned w, unsigned h, unsigned bpc, float* dst) {
  for (unsigned y = 0; y < h; ++y) {
    const Sample* src = pic.row<Sample>(0, y);
    float* d = dst + static_cast<std::ptrdiff_t>(y) * w;
    for (unsigned x = 0; x < w; ++x) d[x] = vif_tools::sample_to_float(src[x], bpc);
  }
}

void load(const PictureView& pic, unsigned w, unsigned h, unsigned bpc, std::vector<float>& dst) {
  dst.resize(static_cast<std::size_t>(w) * h);
  if (bpc == 8) load_plane<std::uint8_t>(pic, w, h, bpc, dst.data());
  else load_plane<std::uint16_t>(pic, w, h, bpc, dst.data());
}

// vif_scale_frame_s into a dw x dh plane.
void prescale(const Config& c, const std::vector<float>& src, std::vector<float>& dst) {
  const unsigned dw = c.plane_w[0], dh = c.plane_h[0];
  dst.resize(static_cast<std::size_t>(dw) * dh);
  const PlaneRef in{src.data(), static_cast<std::ptrdiff_t>(c.w)};
  for (unsigned y = 0; y < dh; ++y)
    for (unsigned x = 0; x < dw; ++x)
      dst[static_cast<std::size_t>(y) * dw + x] =
          vif_tools::scaled_sample(c.method, in, static_cast<int>(c.w), static_cast<int>(c.h), static_cast<int>(dw),
                                   static_cast<int>(dh), static_cast<int>(x), static_cast<int>(y), c.tables.x(),
                                   c.tables.y());
}

}  // namespace

using filter_rows::horizontal;
using filter_rows::pad_row;

namespace {
// One row's float sums of the statistic's terms, from 0 in column order.
template <class Arith>
Terms row_terms(float* const* hz, int w, const StatParams& p, Arith&& arith) {
  Terms sum{0.0f, 0.0f};
  for (int j = 0; j < w; ++j) {
    const Terms t = statistic(hz[0][j], hz[1][j], hz[2][j], hz[3][j], hz[4][j], p, arith);
    sum.num += t.num;
    sum.den += t.den;
  }
  return sum;
}
}  // namespace

ScaleSums CpuFrame::compute(const PictureView& ref, const PictureView& dist) {
  // The CPU's emulation of the fp32pair device variant (set_fp64_emulation).
  const bool emulate = fp64_emulation();
  rmath::Fp32PairArith pair_arith;
  load(ref, c_.w, c_.h, c_.bpc, load_ref_);
  load(dist, c_.w, c_.h, c_.bpc, load_dis_);
  const float* cur_ref = load_ref_.data();
  const float* cur_dis = load_dis_.data();
  int slot = 0;
  if (c_.prescale) {
    prescale(c_, load_ref_, ref_[slot]);
    prescale(c_, load_dis_, dis_[slot]);
    cur_ref = ref_[slot].data();
    cur_dis = dis_[slot].data();
    slot = 1;
  }
  const int pad_w = static_cast<int>(c_.plane_w[0]) + c_.filter[0].width;
  rows_.resize(static_cast<std::size_t>(pad_w) * 5);
  out_.resize(static_cast<std::size_t>(c_.plane_w[0]) * 5);
  float* v[5];
  float* hz[5];
  for (int q = 0; q < 5; ++q) {
    v[q] = rows_.data() + static_cast<std::ptrdiff_t>(q) * pad_w;
    hz[q] = out_.data() + static_cast<std::ptrdiff_t>(q) * c_.plane_w[0];
  }
  const float* rr[vif_tools::max_filter_taps];
  const float* dr[vif_tools::max_filter_taps];

  ScaleSums sums;
  for (int s = 0; s < num_scales; ++s) {
    const vif_tools::Filter& f = c_.filter[s];
    const int fw = f.width, radius = fw / 2;
    if (s > 0) {
      // vif_filter1d_s with scale s's filter, then vif_dec2_s: only the even
      // rows and columns of the filtered plane are needed.
      const int w = static_cast<int>(c_.plane_w[s - 1]), h = static_cast<int>(c_.plane_h[s - 1]);
      const int dw = static_cast<int>(c_.plane_w[s]), dh = static_cast<int>(c_.plane_h[s]);
      ref_[slot].resize(static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh));
      dis_[slot].resize(static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh));
      for (int i2 = 0; i2 < dh; ++i2) {
        filter_rows::source_rows(cur_ref, w, h, 2 * i2, fw, rr);
        filter_rows::source_rows(cur_dis, w, h, 2 * i2, fw, dr);
        float* a = v[0] + radius;
        float* b = v[1] + radius;
        filter_rows::vertical(f, rr, w, a);
        filter_rows::vertical(f, dr, w, b);
        pad_row(v[0], w, radius);
        pad_row(v[1], w, radius);
        horizontal(f, v[0], dw, 2, ref_[slot].data() + static_cast<std::ptrdiff_t>(i2) * dw);
        horizontal(f, v[1], dw, 2, dis_[slot].data() + static_cast<std::ptrdiff_t>(i2) * dw);
      }
      cur_ref = ref_[slot].data();
      cur_dis = dis_[slot].data();
      slot ^= 1;
    }
    if (s == 0 && c_.score.skip_scale0) continue;

    const int w = static_cast<int>(c_.plane_w[s]), h = static_cast<int>(c_.plane_h[s]);
    float accum_num = 0.0f, accum_den = 0.0f;
    for (int i = 0; i < h; ++i) {
      filter_rows::source_rows(cur_ref, w, h, i, fw, rr);
      filter_rows::source_rows(cur_dis, w, h, i, fw, dr);
      float* a[5];
      for (int q = 0; q < 5; ++q) {
        a[q] = v[q] + radius;
        for (int j = 0; j < w; ++j) a[q][j] = 0;
      }
      // vif_filter1d_s, _sq_s, _xy_s: f * x, f * (x * x), f * (x * y).
      for (int k = 0; k < fw; ++k) filter_rows::vertical5_tap(f.taps[k], rr[k], dr[k], w, a[0], a[1], a[2], a[3], a[4]);
      for (int q = 0; q < 5; ++q) {
        pad_row(v[q], w, radius);
        horizontal(f, v[q], w, 1, hz[q]);
      }
      const Terms row = emulate ? row_terms(hz, w, c_.stat, pair_arith) : row_terms(hz, w, c_.stat, rmath::NativeF64{});
      accum_num += row.num;
      accum_den += row.den;
    }
    sums.num[s] = accum_num;
    sums.den[s] = accum_den;
  }
  if (emulate) rmath::count_fp64_emulation(pair_arith);
  return sums;
}

void write_outputs(const Config& c, const ScaleSums& sums, FrameOutput& out) {
  const Scores r = scores(sums, c.score);
  unsigned slot = 0;
  for (double v : r.scale) out.set(slot++, v);
  if (!c.debug) return;
  out.set(slot++, r.score);
  out.set(slot++, r.score_num);
  out.set(slot++, r.score_den);
  for (int k = 0; k < num_scales; ++k) {
    out.set(slot++, r.num[k]);
    out.set(slot++, r.den[k]);
  }
}

}  // namespace float_vif

namespace {

class FloatVifWorker final : public FeatureWorker {
 public:
  explicit FloatVifWorker(const float_vif::Config& c) : c_(c), frame_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    float_vif::write_outputs(c_, frame_.compute(in.ref, in.dist), out);
  }

 private:
  const float_vif::Config& c_;
  float_vif::CpuFrame frame_;
};

class FloatVifExtractor final : public FeatureExtractor {
 public:
  explicit FloatVifExtractor(const OptionValues& o) : options_(o) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return float_vif::init(c_, options_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatVifWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return float_vif::make_cuda_worker(c_); }
#endif

 private:
  OptionValues options_;
  float_vif::Config c_;
};

}  // namespace

FeatureInfo float_vif_feature_info() {
  FeatureInfo f;
  f.name = "float_vif";
  f.help = "visual information fidelity of the luma plane at four scales, in float (vif_scale0..3)";
  f.options = {
      {"debug", OptionType::boolean, false, 0, 0, "debug mode: enable additional output"},
      {"vif_enhn_gain_limit", OptionType::real, 100.0, 1.0, 100.0,
       "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is completely disabled", true,
       "egl"},
      {"vif_kernelscale", OptionType::real, 1.0, 0.1, 4.0,
       "scaling factor for the gaussian kernel (2.0 means multiplying the standard deviation by 2)", true, "ks"},
      {"vif_prescale", OptionType::real, 1.0, 0.1, 4.0,
       "scaling factor for the frame (2.0 means making the image twice as large on each dimension)", true, "ps"},
      {"vif_scale1_min_val", OptionType::real, 0.0, 0.0, 1.0,
       "minimum value allowed; smaller values will be set to this value", true, "s1miv"},
      {"vif_scale2_min_val", OptionType::real, 0.0, 0.0, 1.0,
       "minimum value allowed; smaller values will be set to this value", true, "s2miv"},
      {"vif_scale3_min_val", OptionType::real, 0.0, 0.0, 1.0,
       "minimum value allowed; smaller values will be set to this value", true, "s3miv"},
      {"vif_prescale_method", OptionType::string, std::string("nearest"), 0, 0,
       "scaling method for the frame: nearest, bilinear, bicubic, lanczos4", true, "pm"},
      {"vif_sigma_nsq", OptionType::real, 2.0, 0.0, 5.0, "neural noise variance", true, "snsq"},
      {"vif_skip_scale0", OptionType::boolean, false, 0, 0, "when set, skip scale 0 calculations", true, "ssclz"},
  };
  f.provided = {std::begin(float_vif::base_names), std::end(float_vif::base_names)};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<FloatVifExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
