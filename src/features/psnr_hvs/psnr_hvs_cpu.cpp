// psnr_hvs on the CPU: Y, Cb and Cr on the raw samples; each plane's blocks
// in raster order, their terms added into the plane's float sum in upstream's
// order (psnr_hvs_math.hpp).
#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/psnr_hvs/psnr_hvs_cuda.hpp"
#include "features/psnr_hvs/psnr_hvs_host.hpp"
#include "features/psnr_hvs/psnr_hvs_math.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace psnr_hvs {

std::vector<std::string> init(Config& c, const VideoFormat& fmt) {
  if (fmt.bitdepth > 12)
    throw Error(fmt::format("psnr_hvs: unsupported bit depth {}: at most 12 bits (as upstream)", fmt.bitdepth));
  if (fmt.pix_fmt == PixelFormat::yuv400) throw Error("psnr_hvs: needs chroma planes (the input is 4:0:0)");
  c.bpc = fmt.bitdepth;
  for (unsigned p = 0; p < 3; ++p) {
    c.w[p] = static_cast<int>(fmt.picture_width(p));
    c.h[p] = static_cast<int>(fmt.picture_height(p));
    c.tables[p] = plane_tables(p);
  }
  return {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};
}

namespace {

template <class Sample>
float plane_score_of(const Config& c, const PictureView& ref, const PictureView& dist, unsigned p) {
  const int w = c.w[p], h = c.h[p];
  const PlaneTables& t = c.tables[p];
  float ret = 0.0f;
  std::int32_t pixels = 0;
  std::int32_t s[64], d[64];
  float terms[64];
  for (int y = 0; y < h - 7; y += 7) {
    for (int x = 0; x < w - 7; x += 7) {
      for (int i = 0; i < 8; ++i) {
        const Sample* rs = ref.row<Sample>(p, static_cast<unsigned>(y + i)) + x;
        const Sample* ds = dist.row<Sample>(p, static_cast<unsigned>(y + i)) + x;
        for (int j = 0; j < 8; ++j) {
          s[i * 8 + j] = rs[j];
          d[i * 8 + j] = ds[j];
        }
      }
      block_terms(s, d, t, terms);
      for (int k = 0; k < 64; ++k) ret += terms[k];
      pixels += 64;
    }
  }
  return plane_score(ret, pixels, c.bpc);
}

}  // namespace

float cpu_plane_score(const Config& c, const PictureView& ref, const PictureView& dist, unsigned p) {
  return c.bpc == 8 ? plane_score_of<std::uint8_t>(c, ref, dist, p) : plane_score_of<std::uint16_t>(c, ref, dist, p);
}

void write_outputs(const float score[3], FrameOutput& out) {
  for (unsigned p = 0; p < 3; ++p) out.set(p, score_db(static_cast<double>(score[p])));
  out.set(3, combined_db(static_cast<double>(score[0]), static_cast<double>(score[1]), static_cast<double>(score[2])));
}

}  // namespace psnr_hvs

namespace {

class PsnrHvsWorker final : public FeatureWorker {
 public:
  explicit PsnrHvsWorker(const psnr_hvs::Config& c) : c_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    float score[3];
    for (unsigned p = 0; p < 3; ++p) score[p] = psnr_hvs::cpu_plane_score(c_, in.ref, in.dist, p);
    psnr_hvs::write_outputs(score, out);
  }

 private:
  const psnr_hvs::Config& c_;
};

class PsnrHvsExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat& fmt) override { return psnr_hvs::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<PsnrHvsWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return psnr_hvs::make_cuda_worker(c_); }
#endif

 private:
  psnr_hvs::Config c_;
};

}  // namespace

FeatureInfo psnr_hvs_feature_info() {
  FeatureInfo f;
  f.name = "psnr_hvs";
  f.help = "PSNR-HVS-M per plane from 8x8 integer DCTs with contrast masking (psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr, "
           "psnr_hvs)";
  f.provided = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues&) { return std::make_unique<PsnrHvsExtractor>(); };
  return f;
}

}  // namespace exactvmaf
