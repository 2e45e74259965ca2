// Integer ADM on the CPU (libvmaf's "adm" extractor): the per-scale chain of
// adm_math.hpp driven row by row over per-worker scratch planes.
#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/simd.hpp"
#include "features/adm/adm_cuda.hpp"
#include "features/adm/adm_host.hpp"
#include "features/adm/adm_math.hpp"
#include "features/adm/adm_simd.hpp"
#include "features/registry.hpp"
#include "numeric/fp32pair_counts.hpp"

namespace exactvmaf {

namespace adm {

Config config_from_options(const OptionValues& o) {
  Config c;
  c.debug = o.get_bool("debug");
  c.skip_aim = o.get_bool("adm_skip_aim");
  c.skip_scale0 = o.get_bool("adm_skip_scale0");
  c.gain_limit = o.get_real("adm_enhn_gain_limit");
  c.noise_weight = o.get_real("adm_noise_weight");
  c.dlm_weight = o.get_real("adm_dlm_weight");
  c.min_val = o.get_real("adm_min_val");
  c.csf.mode = static_cast<int>(o.get_int("adm_csf_mode"));
  c.csf.view_dist = o.get_real("adm_norm_view_dist");
  c.csf.display_height = static_cast<int>(o.get_int("adm_ref_display_height"));
  c.csf.csf_scale = o.get_real("adm_csf_scale");
  c.csf.csf_diag_scale = o.get_real("adm_csf_diag_scale");
  return c;
}

namespace {
// The order in which upstream's collector first sees each name.
const char* const base_names[] = {"integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0",
                                  "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};
const char* const debug_names[] = {"integer_adm",
                                   "integer_adm_num",
                                   "integer_adm_den",
                                   "integer_adm_num_scale0",
                                   "integer_adm_den_scale0",
                                   "integer_adm_num_scale1",
                                   "integer_adm_den_scale1",
                                   "integer_adm_num_scale2",
                                   "integer_adm_den_scale2",
                                   "integer_adm_num_scale3",
                                   "integer_adm_den_scale3"};
}  // namespace

std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt) {
  c.w = fmt.picture_width(0);
  c.h = fmt.picture_height(0);
  c.bpc = fmt.bitdepth;
  if (c.w < min_plane_size || c.h < min_plane_size)
    throw Error(fmt::format(
        "--feature adm: the luma plane is {}x{}; adm needs at least {}x{} samples (below that upstream's "
        "4-scale DWT reads outside its buffers)",
        c.w, c.h, min_plane_size, min_plane_size));
  // Upstream's extract() returns -EINVAL for this (its 16-bit pipeline).
  if (c.csf.view_dist * c.csf.display_height < 3.0 * 1080)
    throw Error(fmt::format(
        "--feature adm: adm_norm_view_dist * adm_ref_display_height = {:g} * {} is below 3 * 1080, which "
        "integer adm cannot handle (libvmaf fails on every frame)",
        c.csf.view_dist, c.csf.display_height));
  if (!csf_supported(c.csf))
    throw Error(fmt::format(
        "--feature adm: adm_csf_mode={} has no CSF table for adm_ref_display_height={} at "
        "adm_norm_view_dist={:g} (tables: 480, 720, 1080, 2160 at 3 or 5, and 2160 at 1.5)",
        c.csf.mode, c.csf.display_height, c.csf.view_dist));
  for (int s = 0; s < num_scales; ++s) c.factors[s] = scale_factors(s, c.csf);
  std::vector<std::string> names;
  for (const char* b : base_names) names.push_back(feature_output_name(b, o));
  if (c.debug)
    for (const char* b : debug_names) names.push_back(feature_output_name(b, o));
  return names;
}

namespace {
void decouple0_row_fp32pair(const Bands3<const i16>& ref, const Bands3<const i16>& dis, int i, int j0, int j1,
                            double gain, const i32* div_lookup, const Bands3<i16>& r, const Bands3<i16>& a) {
  rmath::Fp32PairArith f;
  decouple0_row_with(f, ref, dis, i, j0, j1, gain, div_lookup, r, a);
  rmath::count_fp64_emulation(f);
}
void decouple_s123_row_fp32pair(const Bands3<const i32>& ref, const Bands3<const i32>& dis, int i, int j0, int j1,
                                double gain, const i32* div_lookup, const Bands3<i32>& r, const Bands3<i32>& a) {
  rmath::Fp32PairArith f;
  decouple_s123_row_with(f, ref, dis, i, j0, j1, gain, div_lookup, r, a);
  rmath::count_fp64_emulation(f);
}
}  // namespace

const Kernels& fp32pair_kernels() {
  static const Kernels k = [] {
    Kernels t = scalar_kernels();
    t.name = "fp32pair";
    t.decouple0 = &decouple0_row_fp32pair;
    t.decouple_s123 = &decouple_s123_row_fp32pair;
    return t;
  }();
  return k;
}

}  // namespace adm

namespace {

using namespace adm;

const i32* div_lookup_table() {
  static const std::vector<i32> table = [] {
    std::vector<i32> t(div_lookup_size);
    for (int i = 0; i < div_lookup_size; ++i) t[static_cast<std::size_t>(i)] = div_lookup_entry(i);
    return t;
  }();
  return table.data();
}

// One plane of band samples, bw x bh with stride bw (band sizes shrink with
// the scale; the planes are sized for scale 0).
template <class T>
struct Plane {
  std::vector<T> data;
  T* row(int i, std::ptrdiff_t stride) { return data.data() + i * stride; }
};

template <class T>
struct BandSet {  // h, v, d
  std::vector<T> h, v, d;
  void resize(std::size_t n) {
    h.resize(n);
    v.resize(n);
    d.resize(n);
  }
  Bands3<T> view(std::ptrdiff_t stride) { return {h.data(), v.data(), d.data(), stride}; }
  Bands3<const T> cview(std::ptrdiff_t stride) const { return {h.data(), v.data(), d.data(), stride}; }
};

class AdmWorker final : public FeatureWorker {
 public:
  // The row kernels of the SIMD level allowed when the worker is made (same bits at every level).
  explicit AdmWorker(const Config& c) : c_(c), k_(kernels_for(simd_level())) {}
  void extract(const FrameInput& in, FrameOutput& out) override;

 private:
  void allocate();
  template <class Sample>
  void dwt0(const Sample* src, std::ptrdiff_t stride, std::vector<i16>& a, BandSet<i16>& bands);
  void scale0(const FrameInput& in, float* num, float* den, float* aim);
  void scale_s123(int scale, int w, int h, float* num, float* den, float* aim);

  const Config& c_;
  const Kernels& k_;
  bool allocated_ = false;
  std::ptrdiff_t stride_ = 0;  // band stride (scale 0 band width)
  std::vector<i16> lo16_, hi16_;
  std::vector<i32> lo32_[2], hi32_[2];
  std::vector<i16> ref_a16_, dis_a16_;
  BandSet<i16> ref16_, dis16_, r16_, a16_, csf_dst16_, csf_flt16_;
  std::vector<i32> ref_a_[2], dis_a_[2];  // input (approximation band) of the next scale, ping-pong
  int cur_ = 0;
  BandSet<i32> ref32_, dis32_, r32_, a32_, csf_dst32_, csf_flt32_;
};

void AdmWorker::allocate() {
  const int bw = band_size(static_cast<int>(c_.w)), bh = band_size(static_cast<int>(c_.h));
  stride_ = bw;
  const auto n = static_cast<std::size_t>(bw) * static_cast<std::size_t>(bh);
  // Scales 1-3 (the 32-bit planes) keep the scale 0 band stride but have at
  // most band_size(bh) rows: about half the memory (and page zeroing) of n.
  // 64 entries of slack: the last row is now the buffer's end, and vector
  // kernels may load a few entries past a row.
  const auto n123 = static_cast<std::size_t>(bw) * static_cast<std::size_t>(band_size(bh)) + 64;
  lo16_.resize(c_.w);
  hi16_.resize(c_.w);
  for (auto* v : {&lo32_[0], &hi32_[0], &lo32_[1], &hi32_[1]}) v->resize(static_cast<std::size_t>(bw));
  ref_a16_.resize(n);
  dis_a16_.resize(n);
  for (auto* b : {&ref16_, &dis16_, &r16_, &a16_, &csf_dst16_, &csf_flt16_}) b->resize(n);
  for (auto* b : {&ref32_, &dis32_, &r32_, &a32_, &csf_dst32_, &csf_flt32_}) b->resize(n123);
  for (int k = 0; k < 2; ++k) {
    ref_a_[k].resize(n123);
    dis_a_[k].resize(n123);
  }
  allocated_ = true;
}

template <class Sample>
void AdmWorker::dwt0(const Sample* src, std::ptrdiff_t stride, std::vector<i16>& a, BandSet<i16>& bands) {
  const int w = static_cast<int>(c_.w), h = static_cast<int>(c_.h);
  const bool full = !c_.skip_scale0;
  for (int i = 0; i < band_size(h); ++i) {
    if constexpr (sizeof(Sample) == 1)
      k_.dwt0_vertical_u8(src, stride, w, h, i, c_.bpc, lo16_.data(), full ? hi16_.data() : nullptr);
    else
      k_.dwt0_vertical_u16(src, stride, w, h, i, c_.bpc, lo16_.data(), full ? hi16_.data() : nullptr);
    const std::ptrdiff_t off = i * stride_;
    k_.dwt0_horizontal(lo16_.data(), full ? hi16_.data() : nullptr, w, a.data() + off, bands.v.data() + off,
                        bands.h.data() + off, bands.d.data() + off);
  }
}

void AdmWorker::scale0(const FrameInput& in, float* num, float* den, float* aim) {
  if (c_.bpc == 8) {
    dwt0(in.ref.row<std::uint8_t>(0, 0), in.ref.stride[0], ref_a16_, ref16_);
    dwt0(in.dist.row<std::uint8_t>(0, 0), in.dist.stride[0], dis_a16_, dis16_);
  } else {
    dwt0(in.ref.row<std::uint16_t>(0, 0), in.ref.stride[0] / 2, ref_a16_, ref16_);
    dwt0(in.dist.row<std::uint16_t>(0, 0), in.dist.stride[0] / 2, dis_a16_, dis16_);
  }
  const int w = band_size(static_cast<int>(c_.w)), h = band_size(static_cast<int>(c_.h));
  cur_ = 0;  // scale 1 reads ref_a16_ / dis_a16_ (dwt1_vertical_i16); ref_a_[0] is first written at scale 2
  if (c_.skip_scale0) {
    *num = 0.0f;
    *den = 1e-10f;
    *aim = 0.0f;
    return;
  }
  const ScaleFactors& f = c_.factors[0];
  const Region dr = decouple_region(w, h);
  const auto ref = ref16_.cview(stride_), dis = dis16_.cview(stride_);
  const auto r = r16_.view(stride_), a = a16_.view(stride_);
  const i32* lookup = div_lookup_table();
  for (int i = dr.top; i < dr.bottom; ++i)
    k_.decouple0(ref, dis, i, dr.left, dr.right, c_.gain_limit, lookup, r, a);

  // Denominator: |reference|^3 over the scored region.
  const Region sr = score_region(w, h);
  const u64 area = static_cast<u64>(sr.bottom - sr.top) * static_cast<u64>(sr.right - sr.left);
  const int shift_accum = std::max(0, static_cast<int>(ceil_log2(area)) - 20);
  const u64 add_accum = shift_accum > 0 ? u64{1} << (shift_accum - 1) : 0;
  u64 dacc[3] = {0, 0, 0};
  for (int i = sr.top; i < sr.bottom; ++i) {
    const DenRowSums s = k_.den0(ref, i, sr.left, sr.right);
    dacc[0] += (s.h + add_accum) >> shift_accum;
    dacc[1] += (s.v + add_accum) >> shift_accum;
    dacc[2] += (s.d + add_accum) >> shift_accum;
  }
  *den = den_tail(dacc, pow2(static_cast<double>(18 - shift_accum)), f.rfactor, sr, c_.noise_weight);

  const Cm0Shifts cs = cm0_shifts(w);
  const RowShift rs = cm_row_shift(h);
  const auto csf_dst = csf_dst16_.view(stride_), csf_flt = csf_flt16_.view(stride_);
  // CSF of `src` into csf_dst/csf_flt, then the masked sums of `scored`.
  const auto numerator = [&](const Bands3<i16>& src, const Bands3<i16>& scored, double noise_weight) {
    for (int b = 0; b < 3; ++b)
      for (int i = dr.top; i < dr.bottom; ++i)
        k_.csf0(src.row(b, i), f.i_rfactor[b], b, dr.left, dr.right, csf_dst.row(b, i), csf_flt.row(b, i));
    const Bands3<const i16> sc{scored.h, scored.v, scored.d, stride_};
    const Bands3<const i16> ang{csf_dst.h, csf_dst.v, csf_dst.d, stride_};
    const Bands3<const i16> flt{csf_flt.h, csf_flt.v, csf_flt.d, stride_};
    i64 acc[3] = {0, 0, 0};
    for (int i = sr.top; i < sr.bottom; ++i) {
      const CmRowSums s = k_.cm0(sc, ang, flt, f.i_rfactor, w, h, i, sr.left, sr.right, cs);
      acc[0] += (s.h + rs.add) >> rs.shift;
      acc[1] += (s.v + rs.add) >> rs.shift;
      acc[2] += (s.d + rs.add) >> rs.shift;
    }
    return num0_tail(acc, cs, rs.shift, sr, noise_weight);
  };
  *num = numerator(a, r, c_.noise_weight);
  *aim = c_.skip_aim ? 0.0f : numerator(r, a, 0.0);
}

void AdmWorker::scale_s123(int scale, int w_in, int h_in, float* num, float* den, float* aim) {
  const ScaleFactors& f = c_.factors[scale];
  const int nxt = 1 - cur_;
  const i32* ref_in = ref_a_[cur_].data();
  const i32* dis_in = dis_a_[cur_].data();
  const int bh = band_size(h_in);
  for (int i = 0; i < bh; ++i) {
    const std::ptrdiff_t off = i * stride_;
    if (scale == 1)
      k_.dwt1_vertical_i16(ref_a16_.data(), stride_, w_in, h_in, i, lo32_[0].data(), hi32_[0].data());
    else
      k_.dwt_vertical(ref_in, stride_, w_in, h_in, i, scale, lo32_[0].data(), hi32_[0].data());
    k_.dwt_horizontal(lo32_[0].data(), hi32_[0].data(), w_in, scale, ref_a_[nxt].data() + off,
                       ref32_.v.data() + off, ref32_.h.data() + off, ref32_.d.data() + off);
    if (scale == 1)
      k_.dwt1_vertical_i16(dis_a16_.data(), stride_, w_in, h_in, i, lo32_[1].data(), hi32_[1].data());
    else
      k_.dwt_vertical(dis_in, stride_, w_in, h_in, i, scale, lo32_[1].data(), hi32_[1].data());
    k_.dwt_horizontal(lo32_[1].data(), hi32_[1].data(), w_in, scale, dis_a_[nxt].data() + off,
                       dis32_.v.data() + off, dis32_.h.data() + off, dis32_.d.data() + off);
  }
  cur_ = nxt;
  const int w = band_size(w_in), h = bh;

  const Region dr = decouple_region(w, h);
  const auto ref = ref32_.cview(stride_), dis = dis32_.cview(stride_);
  const auto r = r32_.view(stride_), a = a32_.view(stride_);
  const i32* lookup = div_lookup_table();
  for (int i = dr.top; i < dr.bottom; ++i)
    k_.decouple_s123(ref, dis, i, dr.left, dr.right, c_.gain_limit, lookup, r, a);

  const Region sr = score_region(w, h);
  {
    const u32 shift_cub = ceil_log2(static_cast<u64>(sr.right - sr.left));
    const u64 add_cub = half_of_pow2(shift_cub);
    const u32 shift_accum = ceil_log2(static_cast<u64>(sr.bottom - sr.top));
    const u64 add_accum = half_of_pow2(shift_accum);
    const u32 shift_sq = den_s123_shift_sq(scale);
    u64 dacc[3] = {0, 0, 0};
    for (int i = sr.top; i < sr.bottom; ++i) {
      const DenRowSums s = k_.den_s123(ref, i, sr.left, sr.right, shift_sq, shift_cub, add_cub);
      dacc[0] += (s.h + add_accum) >> shift_accum;
      dacc[1] += (s.v + add_accum) >> shift_accum;
      dacc[2] += (s.d + add_accum) >> shift_accum;
    }
    const u32 convert = scale == 1 ? 32u : scale == 2 ? 27u : 23u;
    *den = den_tail(dacc, pow2(static_cast<double>(convert - shift_accum - shift_cub)), f.rfactor, sr,
                    c_.noise_weight);
  }

  const u32 shift_cub = ceil_log2(static_cast<u64>(w));
  const i64 add_cub = half_of_pow2(shift_cub);
  const RowShift rs = cm_row_shift(h);
  const auto csf_dst = csf_dst32_.view(stride_), csf_flt = csf_flt32_.view(stride_);
  const auto numerator = [&](const Bands3<i32>& src, const Bands3<i32>& scored, double noise_weight) {
    for (int b = 0; b < 3; ++b)
      for (int i = dr.top; i < dr.bottom; ++i)
        k_.csf_s123(src.row(b, i), f.i_rfactor[b], dr.left, dr.right, csf_dst.row(b, i), csf_flt.row(b, i));
    const Bands3<const i32> sc{scored.h, scored.v, scored.d, stride_};
    const Bands3<const i32> ang{csf_dst.h, csf_dst.v, csf_dst.d, stride_};
    const Bands3<const i32> flt{csf_flt.h, csf_flt.v, csf_flt.d, stride_};
    i64 acc[3] = {0, 0, 0};
    for (int i = sr.top; i < sr.bottom; ++i) {
      const CmRowSums s = k_.cm_s123(sc, ang, flt, f.i_rfactor, w, h, i, sr.left, sr.right, shift_cub, add_cub);
      acc[0] += (s.h + rs.add) >> rs.shift;
      acc[1] += (s.v + rs.add) >> rs.shift;
      acc[2] += (s.d + rs.add) >> rs.shift;
    }
    return num_s123_tail(acc, scale, shift_cub, rs.shift, sr, noise_weight);
  };
  *num = numerator(a, r, c_.noise_weight);
  *aim = c_.skip_aim ? 0.0f : numerator(r, a, 0.0);
}

void AdmWorker::extract(const FrameInput& in, FrameOutput& out) {
  if (!allocated_) allocate();
  float num[num_scales], den[num_scales], aim[num_scales];
  scale0(in, &num[0], &den[0], &aim[0]);
  int w = band_size(static_cast<int>(c_.w)), h = band_size(static_cast<int>(c_.h));
  for (int s = 1; s < num_scales; ++s) {
    scale_s123(s, w, h, &num[s], &den[s], &aim[s]);
    w = band_size(w);
    h = band_size(h);
  }
  const FrameScores fs = frame_scores(num, den, aim, static_cast<int>(c_.w), static_cast<int>(c_.h), c_.dlm_weight,
                                      c_.min_val);
  write_frame_outputs(fs, c_.debug, out);
}

class AdmExtractor final : public FeatureExtractor {
 public:
  explicit AdmExtractor(const OptionValues& o) : options_(o), c_(config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return adm::init(c_, options_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<AdmWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return adm::make_cuda_worker(c_); }
#endif

 private:
  OptionValues options_;
  Config c_;
};

}  // namespace

FeatureInfo adm_feature_info() {
  FeatureInfo f;
  f.name = "adm";
  f.help =
      "integer ADM: detail loss and additive impairment over a 4-scale DWT of the luma plane (integer_adm2, "
      "integer_aim, integer_adm3, integer_adm_scale0..3)";
  f.options = {
      {"debug", OptionType::boolean, false, 0, 0, "debug mode: enable additional output"},
      {"adm_csf_scale", OptionType::real, 1.0, 0.0, 50.0,
       "scale coefficient for the horizontal & vertical direction terms of CSF", true, "scf"},
      {"adm_csf_diag_scale", OptionType::real, 1.0, 0.0, 50.0, "scale coefficient for the diagonal direction term of CSF",
       true, "scfd"},
      {"adm_dlm_weight", OptionType::real, 0.5, 0.0, 1.0, "linear weighting between DLM and AIM; 1 corresponds to DLM-only",
       true, "dlmw"},
      {"adm_enhn_gain_limit", OptionType::real, 100.0, 1.0, 100.0,
       "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is completely disabled", true,
       "egl"},
      {"adm_norm_view_dist", OptionType::real, 3.0, 0.75, 24.0,
       "normalized viewing distance = viewing distance / ref display's physical height", true, "nvd"},
      {"adm_ref_display_height", OptionType::integer, std::int64_t{1080}, 1, 4320, "reference display height in pixels",
       true, "rdh"},
      {"adm_csf_mode", OptionType::integer, std::int64_t{0}, 0, 3, "contrast sensitivity function", true, "csf"},
      {"adm_noise_weight", OptionType::real, 0.03125, 0.0, 1500.0, "noise weight", true, "nw"},
      {"adm_skip_aim", OptionType::boolean, false, 0, 0, "skip the calculation of AIM"},
      {"adm_skip_scale0", OptionType::boolean, false, 0, 0, "skip the calculation of scale 0", true, "ssz"},
      {"adm_min_val", OptionType::real, 0.0, 0.0, 1.0,
       "minimum value allowed; lower values will be clipped to this value", true, "min"},
  };
  f.provided = {std::begin(adm::base_names), std::end(adm::base_names)};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<AdmExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
