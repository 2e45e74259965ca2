// float_psnr on the CPU. Luma only, as upstream.
#include "features/float_psnr/float_psnr_cuda.hpp"
#include "features/float_psnr/float_psnr_host.hpp"
#include "features/float_psnr/float_psnr_math.hpp"
#include "features/psnr/psnr_math.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace float_psnr {

namespace {

// Upstream's loop: float squares added to a double in raster order.
template <class Sample>
double float_sum(const FrameInput& in, float scaler) {
  const unsigned w = in.ref.w(0), h = in.ref.h(0);
  double noise = 0;
  for (unsigned y = 0; y < h; ++y) {
    const Sample* r = in.ref.row<Sample>(0, y);
    const Sample* d = in.dist.row<Sample>(0, y);
    for (unsigned x = 0; x < w; ++x) noise += static_cast<double>(squared_diff(to_float(r[x], scaler), to_float(d[x], scaler)));
  }
  return noise;
}

}  // namespace

// The frame's sum of squares (the CPU worker; the CUDA worker's fallback).
double host_noise(const FrameInput& in, const Config& c) {
  // Same value as the float path where integer_exact, proven in float_psnr_math.hpp.
  if (c.integer_exact) return noise_from_integer_sse(psnr::plane_sse(in.ref, in.dist, 0), c.k.scaler);
  if (in.ref.format.bitdepth == 8) return float_sum<std::uint8_t>(in, c.k.scaler);
  return float_sum<std::uint16_t>(in, c.k.scaler);
}

}  // namespace float_psnr

namespace {

class FloatPsnrWorker final : public FeatureWorker {
 public:
  explicit FloatPsnrWorker(const float_psnr::Config& c) : c_(c) {}

  void extract(const FrameInput& in, FrameOutput& out) override {
    const double noise = float_psnr::host_noise(in, c_);
    out.set(0, float_psnr::score(noise, static_cast<int>(in.ref.w(0)), static_cast<int>(in.ref.h(0)), c_.k));
  }

 private:
  float_psnr::Config c_;
};

class FloatPsnrExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat& fmt) override {
    c_ = float_psnr::config_for(fmt);
    return {"float_psnr"};
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatPsnrWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return float_psnr::make_cuda_worker(c_); }
#endif

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
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues&) { return std::make_unique<FloatPsnrExtractor>(); };
  return f;
}

}  // namespace exactvmaf
