// float_ms_ssim on the CPU (libvmaf's "float_ms_ssim" extractor): the luma
// planes as floats, four low-pass decimations, and _iqa_ssim on each of the
// five scales through the shared row loops of common/ssim_common.hpp. Frames
// are independent; the pipeline runs one worker per thread. The CUDA worker:
// float_ms_ssim_cuda.cu.
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/float_ms_ssim/float_ms_ssim_cuda.hpp"
#include "features/float_ms_ssim/float_ms_ssim_host.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace float_ms_ssim {

Config config_from_options(const OptionValues& o) {
  Config c;
  c.enable_lcs = o.get_bool("enable_lcs");
  c.enable_db = o.get_bool("enable_db");
  c.clip_db = o.get_bool("clip_db");
  return c;
}

std::vector<std::string> init(Config& c, const VideoFormat& fmt) {
  const int w = static_cast<int>(fmt.picture_width(0)), h = static_cast<int>(fmt.picture_height(0));
  // Upstream prints "error: scale below 1x1!" and fails every frame.
  if (!scales_fit(w, h))
    throw Error(fmt::format("--feature float_ms_ssim: the luma plane is {}x{}; MS-SSIM's 5 scales need at least "
                            "{}x{}",
                            w, h, min_size, min_size));
  c.w[0] = w;
  c.h[0] = h;
  for (int s = 1; s < num_scales; ++s) {
    c.w[s] = decimated_size(c.w[s - 1], 2);
    c.h[s] = decimated_size(c.h[s - 1], 2);
  }
  c.bpc = fmt.bitdepth;
  c.max_db = c.clip_db ? ssim::max_db(c.bpc, static_cast<unsigned>(w), static_cast<unsigned>(h))
                       : std::numeric_limits<double>::infinity();
  std::vector<std::string> names{"float_ms_ssim"};
  if (c.enable_lcs)
    for (const char* term : {"l", "c", "s"})
      for (int s = 0; s < num_scales; ++s) names.push_back(fmt::format("float_ms_ssim_{}_scale{}", term, s));
  return names;
}

void CpuFrame::load(const PictureView& pic, std::vector<float>& dst) const {
  const auto w = static_cast<unsigned>(c_.w[0]), h = static_cast<unsigned>(c_.h[0]);
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

FrameScores CpuFrame::compute(const PictureView& ref, const PictureView& dist, std::uint64_t frame) {
  for (int s = 0; s < num_scales; ++s) {
    const auto n = static_cast<std::size_t>(c_.w[s]) * static_cast<std::size_t>(c_.h[s]);
    ref_[s].resize(n);
    dis_[s].resize(n);
  }
  load(ref, ref_[0]);
  load(dist, dis_[0]);
  for (int s = 1; s < num_scales; ++s) {
    ssim::decimate_plane(LpfTaps{}, lpf_len, 2, ref_[s - 1].data(), c_.w[s - 1], c_.h[s - 1], ref_[s].data(), dec_);
    ssim::decimate_plane(LpfTaps{}, lpf_len, 2, dis_[s - 1].data(), c_.w[s - 1], c_.h[s - 1], dis_[s].data(), dec_);
  }
  FrameScores f;
  for (int s = 0; s < num_scales; ++s) f.scale[s] = rows_.run(ref_[s].data(), dis_[s].data(), c_.w[s], c_.h[s], false);
  combine_scales(f, frame);
  return f;
}

void combine_scales(FrameScores& f, std::uint64_t frame) {
  f.msssim = 1.0;
  for (int s = 0; s < num_scales; ++s) {
    f.msssim = combine(f.msssim, f.scale[s], s);
    // Upstream fails the frame ("ms_ssim is INFINITY"); the means are finite
    // and the exponents below 1, so this is not expected to happen.
    if (f.msssim == std::numeric_limits<double>::infinity())
      throw Error(fmt::format("--feature float_ms_ssim: frame {}: the product of scales 0..{} is infinite", frame, s));
  }
}

void write_outputs(const Config& c, const FrameScores& f, FrameOutput& out) {
  out.set(0, c.enable_db ? ssim::to_db(f.msssim, c.max_db) : f.msssim);
  if (!c.enable_lcs) return;
  unsigned slot = 1;
  for (int s = 0; s < num_scales; ++s) out.set(slot++, static_cast<double>(f.scale[s].l));
  for (int s = 0; s < num_scales; ++s) out.set(slot++, static_cast<double>(f.scale[s].c));
  for (int s = 0; s < num_scales; ++s) out.set(slot++, static_cast<double>(f.scale[s].s));
}

}  // namespace float_ms_ssim

namespace {

using namespace float_ms_ssim;

class FloatMsSsimWorker final : public FeatureWorker {
 public:
  explicit FloatMsSsimWorker(const Config& c) : c_(c), frame_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    write_outputs(c_, frame_.compute(in.ref, in.dist, in.index), out);
  }

 private:
  const Config& c_;
  CpuFrame frame_;
};

class FloatMsSsimExtractor final : public FeatureExtractor {
 public:
  explicit FloatMsSsimExtractor(const OptionValues& o) : c_(config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return float_ms_ssim::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatMsSsimWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return float_ms_ssim::make_cuda_worker(c_); }
#endif

 private:
  Config c_;
};

}  // namespace

FeatureInfo float_ms_ssim_feature_info() {
  FeatureInfo f;
  f.name = "float_ms_ssim";
  f.help =
      "multi-scale SSIM (Wang) of the luma plane over 5 scales, at least 176x176 (float_ms_ssim; the per-scale "
      "l, c, s means with enable_lcs)";
  // None of them is a FEATURE_PARAM upstream: the output names never change.
  f.options = {
      {"enable_lcs", OptionType::boolean, false, 0, 0,
       "also output each scale's means of luminance, contrast and structure"},
      {"enable_db", OptionType::boolean, false, 0, 0, "write the MS-SSIM value in dB, -10 log10 of (1 - ms_ssim)"},
      {"clip_db", OptionType::boolean, false, 0, 0,
       "with enable_db, cap the dB value (at 10 log10 of peak^2 w h / 0.5, rounded up)"},
  };
  f.provided = {"float_ms_ssim"};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<FloatMsSsimExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
