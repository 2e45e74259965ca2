// psnr on the CPU: integer SSE per plane, upstream's tail in psnr_math.hpp.
#include <array>
#include <mutex>

#include "exactvmaf/error.hpp"
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

}  // namespace psnr

namespace {

class PsnrExtractor;

class PsnrWorker final : public FeatureWorker {
 public:
  explicit PsnrWorker(PsnrExtractor& owner) : owner_(owner) {}
  void extract(const FrameInput& in, FrameOutput& out) override;

 private:
  PsnrExtractor& owner_;
};

class PsnrExtractor final : public FeatureExtractor {
 public:
  explicit PsnrExtractor(const OptionValues& o) : c_(psnr::config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return psnr::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<PsnrWorker>(*this); }

  void flush(ScoreTable& table) override {
    if (!c_.enable_apsnr) return;
    static const char* const names[3] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};
    // Upstream reports all three planes, chroma included when it was off.
    for (unsigned p = 0; p < 3; ++p)
      table.set_aggregate(names[p], psnr::apsnr(c_.peak, apsnr_pixels_[p], apsnr_sse_[p]));
  }

  const psnr::Config& config() const { return c_; }
  void add_apsnr(unsigned p, std::uint64_t sse, std::uint64_t pixels) {
    // Integer sums: the same in any frame order.
    std::lock_guard lock(mutex_);
    apsnr_sse_[p] += sse;
    apsnr_pixels_[p] += pixels;
  }

 private:
  psnr::Config c_;
  std::mutex mutex_;
  std::array<std::uint64_t, 3> apsnr_sse_{}, apsnr_pixels_{};
};

void PsnrWorker::extract(const FrameInput& in, FrameOutput& out) {
  const psnr::Config& c = owner_.config();
  for (unsigned p = 0; p < c.planes; ++p) {
    const std::uint64_t sse = psnr::plane_sse(in.ref, in.dist, p);
    const unsigned w = in.ref.w(p), h = in.ref.h(p);
    if (c.enable_apsnr) owner_.add_apsnr(p, sse, static_cast<std::uint64_t>(static_cast<unsigned>(w * h)));
    const psnr::PlaneScore s = psnr::plane_score(sse, w, h, c.peak_sq, c.psnr_max[p]);
    out.set(c.slot_psnr[p], s.psnr);
    if (c.enable_mse) out.set(c.slot_mse[p], s.mse);
  }
}

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
  f.create = [](const OptionValues& o) { return std::make_unique<PsnrExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
