// float_psnr on the CPU. Luma only, as upstream.
#include "features/float_psnr/float_psnr_host.hpp"
#include "features/float_psnr/float_psnr_math.hpp"
#include "features/psnr/psnr_math.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace {

class FloatPsnrWorker final : public FeatureWorker {
 public:
  explicit FloatPsnrWorker(const float_psnr::Config& c) : c_(c.k), integer_exact_(c.integer_exact) {}

  void extract(const FrameInput& in, FrameOutput& out) override {
    const unsigned w = in.ref.w(0), h = in.ref.h(0);
    double noise = 0;
    if (integer_exact_) {
      // Same value as the float path, proven in float_psnr_math.hpp.
      noise = float_psnr::noise_from_integer_sse(psnr::plane_sse(in.ref, in.dist, 0), c_.scaler);
    } else if (in.ref.format.bitdepth == 8) {
      noise = float_sum<std::uint8_t>(in, w, h);
    } else {
      noise = float_sum<std::uint16_t>(in, w, h);
    }
    out.set(0, float_psnr::score(noise, static_cast<int>(w), static_cast<int>(h), c_));
  }

 private:
  // Upstream's loop: float squares added to a double in raster order.
  template <class Sample>
  double float_sum(const FrameInput& in, unsigned w, unsigned h) const {
    double noise = 0;
    for (unsigned y = 0; y < h; ++y) {
      const Sample* r = in.ref.row<Sample>(0, y);
      const Sample* d = in.dist.row<Sample>(0, y);
      for (unsigned x = 0; x < w; ++x)
        noise += static_cast<double>(float_psnr::squared_diff(float_psnr::to_float(r[x], c_.scaler),
                                                              float_psnr::to_float(d[x], c_.scaler)));
    }
    return noise;
  }

  float_psnr::Constants c_;
  bool integer_exact_;
};

class FloatPsnrExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat& fmt) override {
    c_ = float_psnr::config_for(fmt);
    return {"float_psnr"};
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatPsnrWorker>(c_); }

 private:
  float_psnr::Config c_;
};

}  // namespace

FeatureInfo float_psnr_feature_info() {
  FeatureInfo f;
  f.name = "float_psnr";
  f.help = "luma PSNR computed in floating point on samples normalised to 8-bit range (float_psnr)";
  f.provided = {"float_psnr"};
  f.luma_only = true;
  f.create = [](const OptionValues&) { return std::make_unique<FloatPsnrExtractor>(); };
  return f;
}

}  // namespace exactvmaf
