// Integer VIF on the CPU (libvmaf's "vif" extractor): the statistic of four
// scales of the luma planes, the arithmetic in vif_math.hpp; rows go through
// the AVX2 or AVX-512 kernels of vif_simd.hpp when simd_level() allows (same bits).
#include <array>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/simd.hpp"
#include "features/registry.hpp"
#include "features/vif/vif_cuda.hpp"
#include "features/vif/vif_host.hpp"
#include "features/vif/vif_math.hpp"
#include "features/vif/vif_simd.hpp"
#include "numeric/fp32pair_counts.hpp"
#include "numeric/cr_log.hpp"

namespace exactvmaf {

namespace vif {

const std::uint16_t* log2_table() {
  static const std::array<std::uint16_t, log2_table_size + 2> table = [] {
    std::array<std::uint16_t, log2_table_size + 2> t{};  // two zero entries of padding
    for (unsigned n = 0; n < log2_table_size; ++n)
      t[n] = log2_table_entry_from_log2f(rmath::cr_log2f(static_cast<float>(log2_table_first + n)));
    return t;
  }();
  return table.data();
}

std::uint16_t* decimation_rows(unsigned w) {
  static thread_local std::vector<std::uint16_t> rows;
  if (rows.size() < 2 * decimation_row_stride(w)) rows.resize(2 * decimation_row_stride(w));
  return rows.data();
}

namespace {
// Names as upstream's collector prints them (its aliases of
// VMAF_integer_feature_vif_scaleN_score), in upstream's order.
constexpr const char* scale_names[num_scales] = {"integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
                                                 "integer_vif_scale3"};
constexpr const char* debug_names[11] = {
    "integer_vif",            "integer_vif_num",        "integer_vif_den",        "integer_vif_num_scale0",
    "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1", "integer_vif_num_scale2",
    "integer_vif_den_scale2", "integer_vif_num_scale3", "integer_vif_den_scale3"};
}  // namespace

Config config_from_options(const OptionValues& o) {
  Config c;
  c.debug = o.get_bool("debug");
  c.gain_limit = o.get_real("vif_enhn_gain_limit");
  c.skip_scale0 = o.get_bool("vif_skip_scale0");
  return c;
}

std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt) {
  c.w = fmt.picture_width(0);
  c.h = fmt.picture_height(0);
  c.bpc = fmt.bitdepth;
  if (c.bpc < 8 || c.bpc > 16)
    throw Error(fmt::format("--feature vif: bit depth {} is not supported (8 to 16)", c.bpc));
  if (c.w < min_plane_size || c.h < min_plane_size)
    throw Error(fmt::format("--feature vif: the luma plane is {}x{}; vif needs at least {}x{} samples", c.w, c.h,
                            min_plane_size, min_plane_size));
  c.log2_table = log2_table();
  std::vector<std::string> names;
  for (const char* n : scale_names) names.push_back(feature_output_name(n, o));
  if (c.debug)
    for (const char* n : debug_names) names.push_back(feature_output_name(n, o));
  return names;
}

void write_frame_outputs(const ScaleScore* s, bool debug, bool skip_scale0, FrameOutput& out) {
  // Upstream writes scale 0 as 0 (and its debug num/den as 0 and -1) when skipped.
  out.set(0, skip_scale0 ? 0.0 : scale_value(s[0]));
  for (unsigned k = 1; k < num_scales; ++k) out.set(k, scale_value(s[k]));
  if (!debug) return;
  const FrameTotals t = frame_totals(s, skip_scale0);
  unsigned slot = num_scales;
  out.set(slot++, t.score);
  out.set(slot++, t.num);
  out.set(slot++, t.den);
  for (unsigned k = 0; k < num_scales; ++k) {
    if (k == 0 && skip_scale0) {
      out.set(slot++, 0.0);
      out.set(slot++, -1.0);
    } else {
      out.set(slot++, static_cast<double>(s[k].num));
      out.set(slot++, static_cast<double>(s[k].den));
    }
  }
}

// ---- the scalar kernel table (vif_simd.hpp) ------------------------------------

namespace {

// Arith: the fp64 policy of the islands (NativeF64, or Fp32PairArith for
// the fp32pair table, whose counts are added once per call).
template <int Scale, class Sample, class Arith>
Residuals statistic_rows(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis, std::ptrdiff_t dis_stride,
                         unsigned w, unsigned h, unsigned bpc, double gain_limit, const std::uint16_t* log2_table,
                         const StatRow& t) {
  // 8-bit sums of squares fit uint32 (65536 * 255^2 < 2^32).
  using SqAcc = std::conditional_t<Scale == 0 && sizeof(Sample) == 1, std::uint32_t, std::uint64_t>;
  Residuals total;
  Arith f;
  for (unsigned i = 0; i < h; ++i)
    total.add(statistic_row<Scale, Sample, SqAcc>(ref, ref_stride, dis, dis_stride, w, h, i, bpc, gain_limit,
                                                  log2_table, t, f));
  if constexpr (std::is_same_v<Arith, rmath::Fp32PairArith>) rmath::count_fp64_emulation(f);
  return total;
}

template <class Arith>
Residuals statistic_u8(int scale, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                       std::ptrdiff_t dis_stride, unsigned w, unsigned h, double gain_limit,
                       const std::uint16_t* log2_table, const StatRow& t) {
  (void)scale;  // 8-bit samples exist at scale 0 only
  return statistic_rows<0, std::uint8_t, Arith>(ref, ref_stride, dis, dis_stride, w, h, 8, gain_limit, log2_table, t);
}

template <class Arith>
Residuals statistic_u16(int scale, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                        std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, double gain_limit,
                        const std::uint16_t* log2_table, const StatRow& t) {
  return at_scale(scale, [&](auto s) {
    return statistic_rows<s.value, std::uint16_t, Arith>(ref, ref_stride, dis, dis_stride, w, h, bpc, gain_limit,
                                                         log2_table, t);
  });
}

template <int To, class Sample>
void decimate_rows(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis, std::ptrdiff_t dis_stride,
                   unsigned w, unsigned h, unsigned bpc, const ConvolveRow& t, std::uint16_t* out_ref,
                   std::uint16_t* out_dis) {
  const unsigned wo = w / 2;
  for (unsigned i = 0; i < h / 2; ++i)
    decimate_row<To>(ref, ref_stride, dis, dis_stride, w, h, i, bpc, t, out_ref + i * wo, out_dis + i * wo);
}

void decimate_u8(int to, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                 std::ptrdiff_t dis_stride, unsigned w, unsigned h, const ConvolveRow& t, std::uint16_t* out_ref,
                 std::uint16_t* out_dis) {
  (void)to;  // 8-bit samples are decimated to scale 1 only
  decimate_rows<1>(ref, ref_stride, dis, dis_stride, w, h, 8, t, out_ref, out_dis);
}

void decimate_u16(int to, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                  std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, const ConvolveRow& t,
                  std::uint16_t* out_ref, std::uint16_t* out_dis) {
  at_scale<1>(to, [&](auto s) {
    decimate_rows<s.value>(ref, ref_stride, dis, dis_stride, w, h, bpc, t, out_ref, out_dis);
  });
}

Residuals accumulate_pixels(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq,
                            const std::int32_t* sigma12, std::size_t n, double gain_limit,
                            const std::uint16_t* log2_table) {
  Residuals r;
  for (std::size_t p = 0; p < n; ++p)
    accumulate_pixel(sigma1_sq[p], sigma2_sq[p], sigma12[p], gain_limit, log2_table, r);
  return r;
}

Residuals accumulate_pixels_fp32pair(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq,
                                     const std::int32_t* sigma12, std::size_t n, double gain_limit,
                                     const std::uint16_t* log2_table) {
  Residuals r;
  rmath::Fp32PairArith f;
  for (std::size_t p = 0; p < n; ++p)
    accumulate_pixel(sigma1_sq[p], sigma2_sq[p], sigma12[p], gain_limit, log2_table, r, f);
  rmath::count_fp64_emulation(f);
  return r;
}

}  // namespace

const Kernels& scalar_kernels() {
  static const Kernels k = {"scalar",     &statistic_u8<rmath::NativeF64>, &statistic_u16<rmath::NativeF64>,
                            &decimate_u8, &decimate_u16,                   &accumulate_pixels};
  return k;
}

const Kernels& fp32pair_kernels() {
  static const Kernels k = {"fp32pair",   &statistic_u8<rmath::Fp32PairArith>, &statistic_u16<rmath::Fp32PairArith>,
                            &decimate_u8, &decimate_u16,                       &accumulate_pixels_fp32pair};
  return k;
}

}  // namespace vif

namespace {

using vif::Config;

class VifWorker final : public FeatureWorker {
 public:
  explicit VifWorker(const Config& c);
  void extract(const FrameInput& in, FrameOutput& out) override;

 private:
  template <class Sample>
  void run_scales(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis, std::ptrdiff_t dis_stride,
                  vif::ScaleScore* scores);
  vif::Residuals statistic(int scale, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                           std::ptrdiff_t dis_stride, unsigned w, unsigned h) const {
    return k_.statistic_u8(scale, ref, ref_stride, dis, dis_stride, w, h, c_.gain_limit, c_.log2_table, stat_row_);
  }
  vif::Residuals statistic(int scale, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                           std::ptrdiff_t dis_stride, unsigned w, unsigned h) const {
    return k_.statistic_u16(scale, ref, ref_stride, dis, dis_stride, w, h, c_.bpc, c_.gain_limit, c_.log2_table,
                            stat_row_);
  }
  void decimate(int to, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                std::ptrdiff_t dis_stride, unsigned w, unsigned h) {
    k_.decimate_u8(to, ref, ref_stride, dis, dis_stride, w, h, conv_row_, ref_[to].data(), dis_[to].data());
  }
  void decimate(int to, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                std::ptrdiff_t dis_stride, unsigned w, unsigned h) {
    k_.decimate_u16(to, ref, ref_stride, dis, dis_stride, w, h, c_.bpc, conv_row_, ref_[to].data(), dis_[to].data());
  }

  const Config& c_;
  const vif::Kernels& k_;  // the SIMD level's (same bits at every level)
  // Scales 1..3: the decimated planes, dense (stride = width).
  std::array<unsigned, vif::num_scales> w_{}, h_{};
  std::array<std::vector<std::uint16_t>, vif::num_scales> ref_, dis_;
  // One row of vertical sums and of the decimation filter, padded.
  std::array<std::vector<std::uint32_t>, 5> stat_;
  std::array<std::vector<std::uint32_t>, 2> conv_;
  vif::StatRow stat_row_{};
  vif::ConvolveRow conv_row_{};
};

VifWorker::VifWorker(const Config& c) : c_(c), k_(vif::kernels_for(simd_level())) {
  w_[0] = c.w;
  h_[0] = c.h;
  for (int s = 1; s < vif::num_scales; ++s) {
    w_[s] = w_[s - 1] / 2;
    h_[s] = h_[s - 1] / 2;
    ref_[s].resize(static_cast<std::size_t>(w_[s]) * h_[s]);
    dis_[s].resize(static_cast<std::size_t>(w_[s]) * h_[s]);
  }
  const std::size_t row = c.w + 2 * vif::row_pad + vif::simd_row_slack;
  for (auto& v : stat_) v.assign(row, 0);
  for (auto& v : conv_) v.assign(row, 0);
  stat_row_ = {stat_[0].data(), stat_[1].data(), stat_[2].data(), stat_[3].data(), stat_[4].data()};
  conv_row_ = {conv_[0].data(), conv_[1].data()};
}

template <class Sample>
void VifWorker::run_scales(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis, std::ptrdiff_t dis_stride,
                           vif::ScaleScore* scores) {
  if (!c_.skip_scale0) scores[0] = vif::scale_score(statistic(0, ref, ref_stride, dis, dis_stride, w_[0], h_[0]));
  decimate(1, ref, ref_stride, dis, dis_stride, w_[0], h_[0]);
  for (int s = 1; s < vif::num_scales; ++s) {
    const std::uint16_t* r = ref_[s].data();
    const std::uint16_t* d = dis_[s].data();
    scores[s] = vif::scale_score(statistic(s, r, w_[s], d, w_[s], w_[s], h_[s]));
    if (s + 1 < vif::num_scales) decimate(s + 1, r, w_[s], d, w_[s], w_[s], h_[s]);
  }
}

void VifWorker::extract(const FrameInput& in, FrameOutput& out) {
  vif::ScaleScore s[vif::num_scales] = {};
  if (c_.bpc == 8)
    run_scales(in.ref.row<std::uint8_t>(0, 0), in.ref.stride[0], in.dist.row<std::uint8_t>(0, 0), in.dist.stride[0],
               s);
  else
    run_scales(in.ref.row<std::uint16_t>(0, 0), in.ref.stride[0] / 2, in.dist.row<std::uint16_t>(0, 0),
               in.dist.stride[0] / 2, s);

  vif::write_frame_outputs(s, c_.debug, c_.skip_scale0, out);
}

class VifExtractor final : public FeatureExtractor {
 public:
  explicit VifExtractor(const OptionValues& o) : options_(o), c_(vif::config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return vif::init(c_, options_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<VifWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return vif::make_cuda_worker(c_); }
#endif

 private:
  OptionValues options_;
  Config c_;
};

}  // namespace

FeatureInfo vif_feature_info() {
  FeatureInfo f;
  f.name = "vif";
  f.help = "integer VIF: visual information fidelity of the luma plane at four scales (integer_vif_scale0..3)";
  f.options = {
      {"debug", OptionType::boolean, false, 0, 0, "debug mode: enable additional output"},
      {"vif_enhn_gain_limit", OptionType::real, vif::default_gain_limit, 1.0, vif::default_gain_limit,
       "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is completely disabled", true,
       "egl"},
      {"vif_skip_scale0", OptionType::boolean, false, 0, 0, "when set, skip scale 0 calculations", true, "ssclz"},
  };
  f.provided = {std::begin(vif::scale_names), std::end(vif::scale_names)};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<VifExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
