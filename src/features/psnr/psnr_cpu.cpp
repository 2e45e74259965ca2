// psnr on the CPU: integer SSE per plane, upstream's tail in psnr_math.hpp.
#include <array>
#include <memory>

#include "exactvmaf/error.hpp"
#include "features/psnr/psnr_cuda.hpp"
#include "features/psnr/psnr_host.hpp"
#include "features/psnr/psnr_math.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace psnr {

Config config_from_options(const OptionValues& o) {
  Config c;
  c.enable_chroma = o.get_bool("enable_chroma");
  c.enable_mse = o.get_bool("enable_mse");
  c.enable_apsnr = o.get_bool("enable_apsnr");
  c.reduced_hbd_peak = o.get_bool("reduced_hbd_peak");
  c.min_sse = o.get_real("min_sse");
  return c;
}

std::vector<std::string> init(Config& c, const VideoFormat& fmt) {
  static const char* const psnr_names[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
  static const char* const mse_names[3] = {"mse_y", "mse_cb", "mse_cr"};
  if (fmt.pix_fmt == PixelFormat::yuv400) c.enable_chroma = false;
  c.planes = c.enable_chroma ? 3 : 1;
  c.bpc = fmt.bitdepth;
  c.peak = peak_value(fmt.bitdepth, c.reduced_hbd_peak);
  // Upstream's 8-bit path uses 255 whatever the options say.
  c.peak_sq = fmt.bitdepth == 8 ? 255u * 255u : c.peak * c.peak;
  const bool ss_hor = fmt.pix_fmt != PixelFormat::yuv444;
  const bool ss_ver = fmt.pix_fmt == PixelFormat::yuv420;
  for (unsigned p = 0; p < 3; ++p)
    c.psnr_max[p] = psnr_max(p, fmt.bitdepth, c.peak, c.min_sse, ss_hor, ss_ver, fmt.width, fmt.height);
  std::vector<std::string> names;
  for (unsigned p = 0; p < c.planes; ++p) {
    c.slot_psnr[p] = static_cast<unsigned>(names.size());
    names.emplace_back(psnr_names[p]);
    if (c.enable_mse) {
      c.slot_mse[p] = static_cast<unsigned>(names.size());
      names.emplace_back(mse_names[p]);
    }
  }
  return names;
}

void write_frame(const Config& c, const std::uint64_t sse[3], const unsigned w[3], const unsigned h[3],
                 ApsnrSums& sums, FrameOutput& out) {
  for (unsigned p = 0; p < c.planes; ++p) {
    if (c.enable_apsnr) sums.add(p, sse[p], static_cast<std::uint64_t>(static_cast<unsigned>(w[p] * h[p])));
    const PlaneScore s = plane_score(sse[p], w[p], h[p], c.peak_sq, c.psnr_max[p]);
    out.set(c.slot_psnr[p], s.psnr);
    if (c.enable_mse) out.set(c.slot_mse[p], s.mse);
  }
}

}  // namespace psnr

namespace {

class PsnrWorker final : public FeatureWorker {
 public:
  PsnrWorker(const psnr::Config& c, std::shared_ptr<psnr::ApsnrSums> sums) : c_(c), sums_(std::move(sums)) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    std::uint64_t sse[3] = {};
    unsigned w[3] = {}, h[3] = {};
    for (unsigned p = 0; p < c_.planes; ++p) {
      sse[p] = psnr::plane_sse(in.ref, in.dist, p);
      w[p] = in.ref.w(p);
      h[p] = in.ref.h(p);
    }
    psnr::write_frame(c_, sse, w, h, *sums_, out);
  }

 private:
  const psnr::Config& c_;
  std::shared_ptr<psnr::ApsnrSums> sums_;
};

class PsnrExtractor final : public FeatureExtractor {
 public:
  explicit PsnrExtractor(const OptionValues& o) : c_(psnr::config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return psnr::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<PsnrWorker>(c_, sums_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return psnr::make_cuda_worker(c_, sums_); }
#endif

  void flush(ScoreTable& table) override {
    if (!c_.enable_apsnr) return;
    static const char* const names[3] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};
    // Upstream reports all three planes, chroma included when it was off.
    for (unsigned p = 0; p < 3; ++p)
      table.set_aggregate(names[p], psnr::apsnr(c_.peak, sums_->pixels(p), sums_->sse(p)));
  }

 private:
  psnr::Config c_;
  std::shared_ptr<psnr::ApsnrSums> sums_ = std::make_shared<psnr::ApsnrSums>();
};

}  // namespace

FeatureInfo psnr_feature_info() {
  FeatureInfo f;
  f.name = "psnr";
  f.help = "peak signal-to-noise ratio per plane from integer squared errors (psnr_y, psnr_cb, psnr_cr)";
  f.options = {
      {"enable_chroma", OptionType::boolean, true, 0, 0, "enable calculation for chroma channels"},
      {"enable_mse", OptionType::boolean, false, 0, 0, "enable MSE calculation (mse_y, mse_cb, mse_cr)"},
      {"enable_apsnr", OptionType::boolean, false, 0, 0,
       "enable aggregate PSNR over all frames (apsnr_y, apsnr_cb, apsnr_cr)"},
      {"reduced_hbd_peak", OptionType::boolean, false, 0, 0,
       "reduce the high-bit-depth peak to align with scaled 8-bit content"},
      {"min_sse", OptionType::real, 0.0, 0.0, 1.7976931348623157e308, "constrain the minimum possible sse"},
  };
  f.provided = {"psnr_y", "psnr_cb", "psnr_cr"};
  f.every_frame = true;  // upstream flags psnr TEMPORAL (its apsnr sums every frame)
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<PsnrExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
