// float_ssim on the CPU (libvmaf's "float_ssim" extractor): the luma planes
// as floats, the box decimation, and _iqa_ssim through the shared row loops
// of common/ssim_common.hpp. Frames are independent; the pipeline runs one
// worker per thread. The CUDA worker: float_ssim_cuda.cu.
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/float_ssim/float_ssim_cuda.hpp"
#include "features/float_ssim/float_ssim_host.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace float_ssim {

Config config_from_options(const OptionValues& o) {
  Config c;
  c.enable_lcs = o.get_bool("enable_lcs");
  c.enable_db = o.get_bool("enable_db");
  c.clip_db = o.get_bool("clip_db");
  c.scale_option = static_cast<int>(o.get_int("scale"));
  return c;
}

std::vector<std::string> init(Config& c, const VideoFormat& fmt) {
  c.w = static_cast<int>(fmt.picture_width(0));
  c.h = static_cast<int>(fmt.picture_height(0));
  c.bpc = fmt.bitdepth;
  c.scale = c.scale_option > 0 ? c.scale_option : auto_scale(c.w, c.h);
  c.dw = c.scale > 1 ? decimated_size(c.w, c.scale) : c.w;
  c.dh = c.scale > 1 ? decimated_size(c.h, c.scale) : c.h;
  // Upstream scores no pixel then and prints 0, -0 or NaN (0/0) without a
  // word; below scale/2 it also reads outside the plane. Refused.
  if (c.dw < ssim::window_len || c.dh < ssim::window_len)
    throw Error(fmt::format(
        "--feature float_ssim: the {}x{} luma plane is {}x{} after decimation by scale {}{}; the 11x11 SSIM "
        "window needs at least 11x11 (a plane of at least {}x{} at this scale; a smaller scale= fits more)",
        c.w, c.h, c.dw, c.dh, c.scale, c.scale_option > 0 ? "" : " (automatic)", 11 * c.scale, 11 * c.scale));
  c.max_db = c.clip_db ? ssim::max_db(c.bpc, static_cast<unsigned>(c.w), static_cast<unsigned>(c.h))
                       : std::numeric_limits<double>::infinity();
  std::vector<std::string> names{"float_ssim"};
  if (c.enable_lcs) names.insert(names.end(), {"float_ssim_l", "float_ssim_c", "float_ssim_s"});
  return names;
}

void CpuFrame::load(const PictureView& pic, std::vector<float>& dst) const {
  const auto w = static_cast<unsigned>(c_.w), h = static_cast<unsigned>(c_.h);
  dst.resize(static_cast<std::size_t>(w) * h);
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

ssim::Means CpuFrame::compute(const PictureView& ref, const PictureView& dist) {
  load(ref, ref_);
  load(dist, dis_);
  if (c_.scale == 1) return rows_.run(ref_.data(), dis_.data(), c_.w, c_.h, true);
  // Upstream decimates each plane in place; every output is written after
  // the samples it reads (and any later output reads) have been read, so
  // this equals decimating into a second buffer (tests/features/float_ssim_test.cpp).
  ref_dec_.resize(static_cast<std::size_t>(c_.dw) * static_cast<std::size_t>(c_.dh));
  dis_dec_.resize(ref_dec_.size());
  const BoxTaps box(c_.scale);
  ssim::decimate_plane(box, c_.scale, c_.scale, ref_.data(), c_.w, c_.h, ref_dec_.data(), dec_);
  ssim::decimate_plane(box, c_.scale, c_.scale, dis_.data(), c_.w, c_.h, dis_dec_.data(), dec_);
  return rows_.run(ref_dec_.data(), dis_dec_.data(), c_.dw, c_.dh, true);
}

void write_outputs(const Config& c, const ssim::Means& m, FrameOutput& out) {
  double score = static_cast<double>(m.ssim);
  if (c.enable_db) score = ssim::to_db(score, c.max_db);
  out.set(0, score);
  if (c.enable_lcs) {
    out.set(1, static_cast<double>(m.l));
    out.set(2, static_cast<double>(m.c));
    out.set(3, static_cast<double>(m.s));
  }
}

}  // namespace float_ssim

namespace {

using namespace float_ssim;

class FloatSsimWorker final : public FeatureWorker {
 public:
  explicit FloatSsimWorker(const Config& c) : c_(c), frame_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    write_outputs(c_, frame_.compute(in.ref, in.dist), out);
  }

 private:
  const Config& c_;
  CpuFrame frame_;
};

class FloatSsimExtractor final : public FeatureExtractor {
 public:
  explicit FloatSsimExtractor(const OptionValues& o) : c_(config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return float_ssim::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatSsimWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return float_ssim::make_cuda_worker(c_); }
#endif

 private:
  Config c_;
};

}  // namespace

FeatureInfo float_ssim_feature_info() {
  FeatureInfo f;
  f.name = "float_ssim";
  f.help =
      "SSIM of the luma plane with an 11x11 Gaussian window, after decimation by a box of `scale` (float_ssim; "
      "float_ssim_l, _c, _s with enable_lcs)";
  // None of them is a FEATURE_PARAM upstream: the output names never change.
  f.options = {
      {"enable_lcs", OptionType::boolean, false, 0, 0, "also output the means of luminance, contrast and structure"},
      {"enable_db", OptionType::boolean, false, 0, 0, "write the SSIM value in dB, -10 log10 of (1 - ssim)"},
      {"clip_db", OptionType::boolean, false, 0, 0,
       "with enable_db, cap the dB value (at 10 log10 of peak^2 w h / 0.5, rounded up)"},
      {"scale", OptionType::integer, std::int64_t{0}, 0, 10,
       "decimation factor (0 = automatic: min(w, h) / 256 rounded, at least 1; 1 = none)"},
  };
  f.provided = {"float_ssim"};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<FloatSsimExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
