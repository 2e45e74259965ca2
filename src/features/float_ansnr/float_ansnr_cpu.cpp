// float_ansnr on the CPU: luma only, as upstream. The planes are converted
// once per frame into float rows extended by their mirrored borders; each
// output row is filtered and summed at once (float_ansnr_math.hpp).
#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/float_ansnr/float_ansnr_cuda.hpp"
#include "features/float_ansnr/float_ansnr_host.hpp"
#include "features/float_ansnr/float_ansnr_math.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace float_ansnr {

namespace {
constexpr int kPad = kDisWidth / 2;  // mirrored samples kept on each side of a row
}

std::vector<std::string> init(Config& c, const VideoFormat& fmt) {
  if (!supported_bitdepth(fmt.bitdepth))
    throw Error(fmt::format("float_ansnr: unsupported bit depth {} (8, 10, 12 or 16)", fmt.bitdepth));
  if (fmt.picture_width(0) < kMinSize || fmt.picture_height(0) < kMinSize)
    throw Error(fmt::format("float_ansnr: the {}x{} luma plane is smaller than 3x3, the least its 5x5 filter's "
                            "mirrored border stays inside",
                            fmt.picture_width(0), fmt.picture_height(0)));
  c.k = constants(fmt.bitdepth);
  c.w = static_cast<int>(fmt.picture_width(0));
  c.h = static_cast<int>(fmt.picture_height(0));
  for (int fi = 0; fi < kRefWidth; ++fi)
    for (int fj = 0; fj < kRefWidth; ++fj) c.ref_taps[fi * kRefWidth + fj] = ref_tap(fi, fj);
  for (int fi = 0; fi < kDisWidth; ++fi)
    for (int fj = 0; fj < kDisWidth; ++fj) c.dis_taps[fi * kDisWidth + fj] = dis_tap(fi, fj);
  return {"float_ansnr", "float_anpsnr"};
}

namespace {
template <class Sample>
void load_plane(const PictureView& pic, int w, int h, float scaler, float* dst) {
  const int ew = w + 2 * kPad;
  for (int y = 0; y < h; ++y) {
    const Sample* src = pic.row<Sample>(0, static_cast<unsigned>(y));
    float* ext = dst + static_cast<std::ptrdiff_t>(y) * ew;
    for (int x = 0; x < w; ++x) ext[x + kPad] = sample_value(src[x], scaler);
    for (int k = 0; k < kPad; ++k) {
      ext[k] = ext[kPad + mirror(k - kPad, w)];
      ext[w + kPad + k] = ext[kPad + mirror(w + k, w)];
    }
  }
}
}  // namespace

void CpuFrame::load(const PictureView& pic, std::vector<float>& dst) const {
  dst.resize(static_cast<std::size_t>(c_.w + 2 * kPad) * static_cast<std::size_t>(c_.h));
  if (pic.format.bitdepth == 8) load_plane<std::uint8_t>(pic, c_.w, c_.h, c_.k.scaler, dst.data());
  else load_plane<std::uint16_t>(pic, c_.w, c_.h, c_.k.scaler, dst.data());
}

RowSums CpuFrame::compute(const PictureView& ref, const PictureView& dist) {
  load(ref, ref_);
  load(dist, dis_);
  ref_row_.resize(static_cast<std::size_t>(c_.w));
  dis_row_.resize(static_cast<std::size_t>(c_.w));
  const std::ptrdiff_t ew = c_.w + 2 * kPad;
  RowSums frame;
  for (int i = 0; i < c_.h; ++i) {
    const float* ref_rows[kRefWidth];
    const float* dis_rows[kDisWidth];
    for (int fi = 0; fi < kRefWidth; ++fi)
      ref_rows[fi] = ref_.data() + mirror(i - kRefWidth / 2 + fi, c_.h) * ew;
    for (int fi = 0; fi < kDisWidth; ++fi)
      dis_rows[fi] = dis_.data() + mirror(i - kDisWidth / 2 + fi, c_.h) * ew;
    filter_row<kRefWidth>(c_.ref_taps, ref_rows, ref_row_.data(), c_.w);
    filter_row<kDisWidth>(c_.dis_taps, dis_rows, dis_row_.data(), c_.w);
    const RowSums row = mse_row(ref_row_.data(), dis_row_.data(), c_.w);
    frame.sig += row.sig;
    frame.noise += row.noise;
  }
  return frame;
}

}  // namespace float_ansnr

namespace {

class FloatAnsnrWorker final : public FeatureWorker {
 public:
  explicit FloatAnsnrWorker(const float_ansnr::Config& c) : c_(c), frame_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    const float_ansnr::RowSums sums = frame_.compute(in.ref, in.dist);
    const float_ansnr::Scores s = float_ansnr::scores(sums.sig, sums.noise, c_.w, c_.h, c_.k);
    out.set(0, s.ansnr);
    out.set(1, s.anpsnr);
  }

 private:
  const float_ansnr::Config& c_;
  float_ansnr::CpuFrame frame_;
};

class FloatAnsnrExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat& fmt) override { return float_ansnr::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatAnsnrWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return float_ansnr::make_cuda_worker(c_); }
#endif

 private:
  float_ansnr::Config c_;
};

}  // namespace

FeatureInfo float_ansnr_feature_info() {
  FeatureInfo f;
  f.name = "float_ansnr";
  f.help = "anti-noise SNR of the luma plane: the reference smoothed 3x3, the distorted 5x5 "
           "(float_ansnr, float_anpsnr)";
  f.provided = {"float_ansnr", "float_anpsnr"};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues&) { return std::make_unique<FloatAnsnrExtractor>(); };
  return f;
}

}  // namespace exactvmaf
