// Float ADM on the CPU (libvmaf's "float_adm" extractor): the per-scale chain
// of float_adm_math.hpp driven row by row over per-worker scratch planes.
// Frames are independent; the pipeline runs one worker per thread.
#include <cstdint>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/float_adm/float_adm_cuda.hpp"
#include "features/float_adm/float_adm_host.hpp"
#include "features/registry.hpp"
#include "numeric/fp32pair_counts.hpp"

namespace exactvmaf {

namespace float_adm {

void CpuFrame::allocate() {
  const auto w = static_cast<std::size_t>(c_.w), h = static_cast<std::size_t>(c_.h);
  const int bw = band_size(static_cast<int>(c_.w)), bh = band_size(static_cast<int>(c_.h));
  stride_ = bw;
  const auto n = static_cast<std::size_t>(bw) * static_cast<std::size_t>(bh);
  ref0_.resize(w * h);
  dis0_.resize(w * h);
  lo_.resize(w);
  hi_.resize(w);
  for (int k = 0; k < 2; ++k) {
    ref_a_[k].resize(n);
    dis_a_[k].resize(n);
  }
  for (BandSet* b : {&ref_, &dis_, &r_, &a_, &csf_a_, &csf_f_}) {
    b->h.resize(n);
    b->v.resize(n);
    b->d.resize(n);
  }
  allocated_ = true;
}

void CpuFrame::load(const PictureView& pic, std::vector<float>& dst) const {
  const unsigned w = c_.w, h = c_.h;
  for (unsigned y = 0; y < h; ++y) {
    float* out = dst.data() + static_cast<std::size_t>(y) * w;
    if (c_.bpc == 8) {
      const std::uint8_t* row = pic.row<std::uint8_t>(0, y);
      for (unsigned x = 0; x < w; ++x) out[x] = input_sample(row[x], 8);
    } else {
      const std::uint16_t* row = pic.row<std::uint16_t>(0, y);
      for (unsigned x = 0; x < w; ++x) out[x] = input_sample(row[x], c_.bpc);
    }
  }
}

// One DWT level of a w x h plane (stride w for scale 0, stride_ after).
void CpuFrame::dwt(const float* src, int w, int h, std::vector<float>& a, BandSet& bands) {
  const std::ptrdiff_t src_stride = src == ref0_.data() || src == dis0_.data() ? w : stride_;
  const int bh = band_size(h);
  for (int i = 0; i < bh; ++i) {
    k_.dwt_vertical_row(src, src_stride, w, h, i, lo_.data(), hi_.data());
    const std::ptrdiff_t o = i * stride_;
    k_.dwt_horizontal_row(lo_.data(), hi_.data(), w, a.data() + o, bands.v.data() + o, bands.h.data() + o,
                          bands.d.data() + o);
  }
}

// Scale s of compute_adm: DWT of the current approximation planes (w x h),
// then decouple, denominator, CSF and masking on the bands.
void CpuFrame::scale(int s, int w_in, int h_in, float* num, float* den, float* aim) {
  const int nxt = 1 - cur_;
  const float* ref_in = s == 0 ? ref0_.data() : ref_a_[cur_].data();
  const float* dis_in = s == 0 ? dis0_.data() : dis_a_[cur_].data();
  dwt(ref_in, w_in, h_in, ref_a_[nxt], ref_);
  dwt(dis_in, w_in, h_in, dis_a_[nxt], dis_);
  cur_ = nxt;
  if (s == 0 && c_.skip_scale0) {
    *num = 0.0f;
    *den = static_cast<float>(1e-10);
    *aim = 0.0f;
    return;
  }
  const int w = band_size(w_in), h = band_size(h_in);
  const float* rf = c_.rfactor[s];
  const PNorm pn = p_norm(c_.p_norm);
  bool undecided = false;  // only the device leaves powf terms undecided

  const Region dr = decouple_region(w, h);
  const auto ref = ref_.cview(stride_), dis = dis_.cview(stride_);
  const auto r = r_.view(stride_), a = a_.view(stride_);
  for (int i = dr.top; i < dr.bottom; ++i) k_.decouple_row(ref, dis, i, dr.left, dr.right, c_.gain_limit, r, a);

  const Region sr = score_region(w, h);
  RowSums dtotal;
  for (int i = sr.top; i < sr.bottom; ++i)
    add_row(&dtotal, k_.den_row(ref, rf, i, sr.left, sr.right, pn, &undecided));
  *den = scale_tail(dtotal, sr, c_.noise_weight, c_.p_norm);

  // CSF of `masker` into (dst, flt), then the masked sums of `scored`.
  const auto numerator = [&](const Bands3<float>& masker, BandSet& dst, BandSet& flt, const Bands3<float>& scored,
                             double noise_weight) {
    for (int b = 0; b < 3; ++b)
      for (int i = dr.top; i < dr.bottom; ++i)
        k_.csf_row(masker.row(b, i), rf[b], dr.left, dr.right, dst.view(stride_).row(b, i),
                flt.view(stride_).row(b, i));
    const Bands3<const float> sc{scored.h, scored.v, scored.d, stride_};
    RowSums total;
    for (int i = sr.top; i < sr.bottom; ++i)
      add_row(&total, k_.cm_row(sc, dst.cview(stride_), flt.cview(stride_), rf, w, h, i, sr.left, sr.right,
                             c_.bypass_cm, pn, &undecided));
    return scale_tail(total, sr, noise_weight, c_.p_norm);
  };
  // Upstream: csf(a) -> (csf_a, csf_f), cm(r); csf(r) -> (csf_f, csf_a), cm(a).
  *num = numerator(a, csf_a_, csf_f_, r, c_.noise_weight);
  *aim = numerator(r, csf_f_, csf_a_, a, 0.0);
}

FrameScores CpuFrame::compute(const PictureView& ref, const PictureView& dist) {
  if (!allocated_) allocate();
  load(ref, ref0_);
  load(dist, dis0_);
  cur_ = 0;
  float num[num_scales], den[num_scales], aim[num_scales];
  int w = static_cast<int>(c_.w), h = static_cast<int>(c_.h);
  for (int s = 0; s < num_scales; ++s) {
    scale(s, w, h, &num[s], &den[s], &aim[s]);
    w = band_size(w);
    h = band_size(h);
  }
  return frame_scores(num, den, aim, static_cast<int>(c_.w), static_cast<int>(c_.h), c_.frame);
}

Config config_from_options(const OptionValues& o) {
  Config c;
  c.debug = o.get_bool("debug");
  c.skip_scale0 = o.get_bool("adm_skip_scale0");
  c.bypass_cm = o.get_int("adm_bypass_cm") != 0;
  c.gain_limit = o.get_real("adm_enhn_gain_limit");
  c.noise_weight = o.get_real("adm_noise_weight");
  c.p_norm = o.get_real("adm_p_norm");
  c.frame.dlm_weight = o.get_real("adm_dlm_weight");
  c.frame.min_val = o.get_real("adm_min_val");
  c.frame.adm3_apply_hm = o.get_bool("adm_adm3_apply_hm");
  c.frame.skip_aim_scale = static_cast<int>(o.get_int("adm_skip_aim_scale"));
  c.csf.mode = static_cast<int>(o.get_int("adm_csf_mode"));
  c.csf.view_dist = o.get_real("adm_norm_view_dist");
  c.csf.display_height = static_cast<int>(o.get_int("adm_ref_display_height"));
  c.csf.csf_scale = o.get_real("adm_csf_scale");
  c.csf.csf_diag_scale = o.get_real("adm_csf_diag_scale");
  for (int s = 0; s < num_scales; ++s) {
    c.csf.f1[s] = o.get_real(fmt::format("adm_f1s{}", s));
    c.csf.f2[s] = o.get_real(fmt::format("adm_f2s{}", s));
  }
  return c;
}

namespace {
// Upstream's names after its alias table, in the order its collector first
// sees them. "adm" is not among the extractor's provided features, so it
// never gets an option suffix.
const char* const base_names[] = {"adm2", "aim", "adm3", "adm_scale0", "adm_scale1", "adm_scale2", "adm_scale3"};
const char* const debug_names[] = {"adm_num",        "adm_den",        "adm_num_scale0", "adm_den_scale0",
                                   "adm_num_scale1", "adm_den_scale1", "adm_num_scale2", "adm_den_scale2",
                                   "adm_num_scale3", "adm_den_scale3"};

}  // namespace

std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt) {
  c.w = fmt.picture_width(0);
  c.h = fmt.picture_height(0);
  c.bpc = fmt.bitdepth;
  if (c.w < min_plane_size || c.h < min_plane_size)
    throw Error(fmt::format(
        "--feature float_adm: the luma plane is {}x{}; float_adm needs at least {}x{} samples (below that "
        "upstream's 4-scale DWT and masking read outside their bands)",
        c.w, c.h, min_plane_size, min_plane_size));
  for (int s = 0; s < num_scales; ++s) scale_rfactors(s, c.csf, c.rfactor[s]);
  std::vector<std::string> names;
  for (const char* b : base_names) names.push_back(feature_output_name(b, o));
  if (c.debug) {
    names.emplace_back("adm");
    for (const char* b : debug_names) names.push_back(feature_output_name(b, o));
  }
  return names;
}

namespace {
void decouple_row_fp32pair(const Bands3<const float>& ref, const Bands3<const float>& dis, int i, int j0, int j1,
                           double gain, const Bands3<float>& r, const Bands3<float>& a) {
  rmath::Fp32PairArith f;
  decouple_row_with(f, ref, dis, i, j0, j1, gain, r, a);
  rmath::count_fp64_emulation(f);
}
void csf_row_fp32pair(const float* src, float rfactor, int j0, int j1, float* dst, float* flt) {
  rmath::Fp32PairArith f;
  csf_row_with(f, src, rfactor, j0, j1, dst, flt);
  rmath::count_fp64_emulation(f);
}
RowSums den_row_fp32pair(const Bands3<const float>& ref, const float rfactor[3], int i, int j0, int j1,
                         const PNorm& pn, bool* undecided) {
  rmath::Fp32PairArith f;
  const RowSums s = den_row_with(f, ref, rfactor, i, j0, j1, pn, undecided);
  rmath::count_fp64_emulation(f);
  return s;
}
RowSums cm_row_fp32pair(const Bands3<const float>& src, const Bands3<const float>& angles,
                        const Bands3<const float>& flt, const float rfactor[3], int w, int h, int i, int j0, int j1,
                        bool bypass_cm, const PNorm& pn, bool* undecided) {
  rmath::Fp32PairArith f;
  const RowSums s = cm_row_with(f, src, angles, flt, rfactor, w, h, i, j0, j1, bypass_cm, pn, undecided);
  rmath::count_fp64_emulation(f);
  return s;
}
}  // namespace

const Kernels& fp32pair_kernels() {
  static const Kernels k = [] {
    Kernels t = scalar_kernels();
    t.name = "fp32pair";
    t.decouple_row = &decouple_row_fp32pair;
    t.csf_row = &csf_row_fp32pair;
    t.den_row = &den_row_fp32pair;
    t.cm_row = &cm_row_fp32pair;
    return t;
  }();
  return k;
}

}  // namespace float_adm

namespace {

using namespace float_adm;

class FloatAdmWorker final : public FeatureWorker {
 public:
  explicit FloatAdmWorker(const Config& c) : c_(c), frame_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    write_frame_outputs(frame_.compute(in.ref, in.dist), c_.debug, out);
  }

 private:
  const Config& c_;
  CpuFrame frame_;
};

class FloatAdmExtractor final : public FeatureExtractor {
 public:
  explicit FloatAdmExtractor(const OptionValues& o) : options_(o), c_(config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return float_adm::init(c_, options_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatAdmWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return float_adm::make_cuda_worker(c_); }
#endif

 private:
  OptionValues options_;
  Config c_;
};

}  // namespace

FeatureInfo float_adm_feature_info() {
  FeatureInfo f;
  f.name = "float_adm";
  f.help =
      "float ADM: detail loss and additive impairment over a 4-scale DWT of the luma plane (adm2, aim, adm3, "
      "adm_scale0..3)";
  const auto factor = [](const char* name, const char* help) {
    return OptionSpec{name, OptionType::real, -1.0, -1.0, 10.0, help, true, name + 4};
  };
  f.options = {
      {"debug", OptionType::boolean, false, 0, 0, "debug mode: enable additional output"},
      {"adm_enhn_gain_limit", OptionType::real, 100.0, 1.0, 100.0,
       "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is completely disabled", true,
       "egl"},
      {"adm_norm_view_dist", OptionType::real, 3.0, 0.75, 24.0,
       "normalized viewing distance = viewing distance / ref display's physical height", true, "nvd"},
      {"adm_noise_weight", OptionType::real, 0.03125, 0.0, 1500.0, "noise weight", true, "nw"},
      {"adm_csf_scale", OptionType::real, 1.0, 0.0, 50.0, "scale factor for the CSF", true, "scf"},
      {"adm_csf_diag_scale", OptionType::real, 1.0, 0.0, 50.0, "scale factor for the CSF diag", true, "scfd"},
      {"adm_ref_display_height", OptionType::integer, std::int64_t{1080}, 1, 4320,
       "reference display height in pixels", true, "rdf"},
      {"adm_csf_mode", OptionType::integer, std::int64_t{0}, 0, 9,
       "contrast sensitivity function (0: Watson 1997, 1: Barten, 2: the DLM paper's; others: Watson)", true,
       "csf"},
      {"adm_bypass_cm", OptionType::integer, std::int64_t{0}, 0, 1, "bypass contrast masking (CM)", true, "bcm"},
      {"adm_adm3_apply_hm", OptionType::boolean, false, 0, 0, "apply harmonic mean to combine DLM and AIM", true,
       "aah"},
      {"adm_p_norm", OptionType::real, 3.0, 1.0, 20.0, "p-norm for energy vector", true, "apn"},
      {"adm_dlm_weight", OptionType::real, 0.5, 0.0, 1.0,
       "linear weighting between DLM and AIM; 1 corresponds to DLM-only", true, "dlmw"},
      {"adm_min_val", OptionType::real, 0.0, 0.0, 1.0,
       "minimum value allowed; lower values will be clipped to this value", true, "min"},
      factor("adm_f1s0", "factor1 scale0"),
      factor("adm_f1s1", "factor1 scale1"),
      factor("adm_f1s2", "factor1 scale2"),
      factor("adm_f1s3", "factor1 scale3"),
      factor("adm_f2s0", "factor2 scale0"),
      factor("adm_f2s1", "factor2 scale1"),
      factor("adm_f2s2", "factor2 scale2"),
      factor("adm_f2s3", "factor2 scale3"),
      {"adm_skip_aim_scale", OptionType::integer, std::int64_t{-1}, 0, 3,
       "when set, skip AIM calculations for that scale", true, "sasc"},
      {"adm_skip_scale0", OptionType::boolean, false, 0, 0, "skip the calculation of scale 0", true, "ssz"},
  };
  f.provided = {std::begin(float_adm::base_names), std::end(float_adm::base_names)};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<FloatAdmExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
