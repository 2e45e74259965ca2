// float_moment on the CPU: luma only, as upstream. The sums are integers
// where that is upstream's chain exactly (float_moment_math.hpp), else R's
// double chain. The CUDA worker (float_moment_cuda.cu) shares the host tail.
#include <fmt/format.h>

#include <optional>

#include "exactvmaf/error.hpp"
#include "features/float_moment/float_moment_cuda.hpp"
#include "features/float_moment/float_moment_host.hpp"
#include "features/float_moment/float_moment_math.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace float_moment {

std::vector<std::string> init(Config& c, const VideoFormat& fmt) {
  if (fmt.bitdepth != 8 && fmt.bitdepth != 10 && fmt.bitdepth != 12 && fmt.bitdepth != 16)
    throw Error(fmt::format("float_moment: unsupported bit depth {} (8, 10, 12 or 16)", fmt.bitdepth));
  c.bpc = fmt.bitdepth;
  c.scaler = scaler_of(fmt.bitdepth);
  c.w = static_cast<int>(fmt.picture_width(0));
  c.h = static_cast<int>(fmt.picture_height(0));
  return {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"};
}

// A picture's moments from its integer totals while both are below
// kExactChainLimit (then they are upstream's chains exactly); nullopt beyond,
// where only R's double chain gives the sum. The CPU worker's fast path and
// the CUDA worker's (float_moment_cuda.cu declares it).
std::optional<Moments> moments_from_totals(const Config& c, std::uint64_t total1, std::uint64_t total2) {
  if (total1 >= kExactChainLimit || total2 >= kExactChainLimit) return std::nullopt;
  const double unit1 = 1.0 / static_cast<double>(c.scaler);  // powers of two: exact
  const double unit2 = unit1 * unit1;
  return Moments{moment_from_units(total1, unit1, c.w, c.h), moment_from_units(total2, unit2, c.w, c.h)};
}

namespace {

template <class Sample>
Moments moments_of(const Config& c, const PictureView& pic) {
  const unsigned w = static_cast<unsigned>(c.w), h = static_cast<unsigned>(c.h);
  std::uint64_t total1 = 0, total2 = 0;
  for (unsigned y = 0; y < h; ++y) {
    const Sample* row = pic.row<Sample>(0, y);
    total1 += row_sum_units(row, w);
    if constexpr (sizeof(Sample) == 1) {
      total2 += row_sum_square_units_exact(row, w);
    } else {
      total2 += c.bpc == 16 ? row_sum_square_units_16(row, w) : row_sum_square_units_exact(row, w);
    }
  }
  if (const std::optional<Moments> m = moments_from_totals(c, total1, total2)) return *m;
  // Beyond 2^53 units upstream's double chain rounds: run it.
  double cum1 = 0, cum2 = 0;
  for (unsigned y = 0; y < h; ++y) double_chain_row(pic.row<Sample>(0, y), w, c.scaler, cum1, cum2);
  return {moment_from_chain(cum1, c.w, c.h), moment_from_chain(cum2, c.w, c.h)};
}

}  // namespace

Moments picture_moments(const Config& c, const PictureView& pic) {
  return c.bpc == 8 ? moments_of<std::uint8_t>(c, pic) : moments_of<std::uint16_t>(c, pic);
}

}  // namespace float_moment

namespace {

class FloatMomentWorker final : public FeatureWorker {
 public:
  explicit FloatMomentWorker(const float_moment::Config& c) : c_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    const float_moment::Moments r = float_moment::picture_moments(c_, in.ref);
    const float_moment::Moments d = float_moment::picture_moments(c_, in.dist);
    out.set(float_moment::ref1st, r.first);
    out.set(float_moment::dis1st, d.first);
    out.set(float_moment::ref2nd, r.second);
    out.set(float_moment::dis2nd, d.second);
  }

 private:
  const float_moment::Config& c_;
};

class FloatMomentExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat& fmt) override { return float_moment::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<FloatMomentWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return float_moment::make_cuda_worker(c_); }
#endif

 private:
  float_moment::Config c_;
};

}  // namespace

FeatureInfo float_moment_feature_info() {
  FeatureInfo f;
  f.name = "float_moment";
  f.help = "first and second moments of the luma samples normalised to 8-bit range "
           "(float_moment_ref1st, _dis1st, _ref2nd, _dis2nd)";
  f.provided = {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"};
  f.luma_only = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues&) { return std::make_unique<FloatMomentExtractor>(); };
  return f;
}

}  // namespace exactvmaf
