// Integer motion on the CPU (libvmaf's "motion" extractor): per-frame SAD of
// the blurred reference difference in motion_math.hpp; motion2/motion3 from
// all frames' scores at flush.
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/simd.hpp"
#include "features/motion/motion_math.hpp"
#include "features/motion/motion_simd.hpp"
#include "features/registry.hpp"
#if defined(EXACTVMAF_HAVE_CUDA)
#include "features/motion/motion_cuda.hpp"
#endif

namespace exactvmaf {

namespace {

// SIMD kernels give the same integers; --simd scalar selects the plain loop.
std::uint64_t frame_sad_8bit(const std::uint8_t* earlier, std::ptrdiff_t earlier_stride, const std::uint8_t* current,
                             std::ptrdiff_t current_stride, unsigned w, unsigned h, std::int32_t* y_row) {
#if EXACTVMAF_MOTION_HAVE_AVX2
  if (simd_level() >= SimdLevel::avx2)
    return motion::frame_sad_avx2_u8(earlier, earlier_stride, current, current_stride, w, h, y_row);
#endif
  return motion::frame_sad(earlier, earlier_stride, current, current_stride, w, h, 8, y_row);
}

std::uint64_t frame_sad_hbd(const std::uint16_t* earlier, std::ptrdiff_t earlier_stride, const std::uint16_t* current,
                            std::ptrdiff_t current_stride, unsigned w, unsigned h, unsigned bpc, std::int32_t* y_row) {
#if EXACTVMAF_MOTION_HAVE_AVX2
  if (bpc <= motion::avx2_max_bpc && simd_level() >= SimdLevel::avx2)
    return motion::frame_sad_avx2_u16(earlier, earlier_stride, current, current_stride, w, h, bpc, y_row);
#endif
  return motion::frame_sad(earlier, earlier_stride, current, current_stride, w, h, bpc, y_row);
}

constexpr const char* sad_name = "VMAF_integer_feature_motion_sad_score";
constexpr const char* debug_name = "integer_motion";
constexpr const char* motion2_name = "integer_motion2";
constexpr const char* motion3_name = "integer_motion3";

struct MotionConfig {
  bool force_zero = false, debug = false;
  double fps_weight = 1.0;
  motion::TemporalOptions temporal;
  unsigned w = 0, h = 0, bpc = 8;
  unsigned slot_debug = 0;
  std::vector<std::string> names;  // sad, [debug], motion2, motion3
};

class MotionWorker final : public FeatureWorker {
 public:
  explicit MotionWorker(const MotionConfig& c) : c_(c), y_row_(c.w) {}
  void extract(const FrameInput& in, FrameOutput& out) override;

 private:
  const MotionConfig& c_;
  std::vector<std::int32_t> y_row_;  // per-thread scratch: one row of the vertical pass
};

class MotionExtractor final : public FeatureExtractor {
 public:
  explicit MotionExtractor(const OptionValues& o) : options_(o) {
    c_.force_zero = o.get_bool("motion_force_zero");
    c_.debug = o.get_bool("debug");
    c_.fps_weight = o.get_real("motion_fps_weight");
    c_.temporal.blend_factor = o.get_real("motion_blend_factor");
    c_.temporal.blend_offset = o.get_real("motion_blend_offset");
    c_.temporal.max_val = o.get_real("motion_max_val");
    c_.temporal.five_frame_window = o.get_bool("motion_five_frame_window");
    c_.temporal.moving_average = o.get_bool("motion_moving_average");
  }

  std::vector<std::string> init(const VideoFormat& fmt) override {
    c_.w = fmt.picture_width(0);
    c_.h = fmt.picture_height(0);
    c_.bpc = fmt.bitdepth;
    if (c_.w < motion::min_plane_size || c_.h < motion::min_plane_size)
      throw Error(fmt::format("--feature motion: the luma plane is {}x{}; motion needs at least {}x{} samples", c_.w,
                              c_.h, motion::min_plane_size, motion::min_plane_size));
    // The order in which upstream's collector first sees each name.
    std::vector<const char*> base = {sad_name};
    if (c_.debug) base.push_back(debug_name);
    base.push_back(motion2_name);
    base.push_back(motion3_name);
    c_.names.clear();
    for (const char* b : base) c_.names.push_back(feature_output_name(b, options_));
    c_.slot_debug = 1;
    return c_.names;
  }

  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<MotionWorker>(c_); }

  unsigned history() const override { return motion::first_scored_frame(c_.temporal.five_frame_window); }

#if defined(EXACTVMAF_HAVE_CUDA)
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override {
    return motion::make_cuda_worker({c_.w, c_.h, c_.bpc, history(), c_.force_zero, c_.debug, c_.fps_weight,
                                     c_.temporal.max_val, c_.slot_debug});
  }
#endif

  void flush(ScoreTable& table) override {
    const auto sad_id = table.find_metric(c_.names.front());
    const auto m2_id = table.find_metric(c_.names[c_.names.size() - 2]);
    const auto m3_id = table.find_metric(c_.names.back());
    if (!sad_id || !m2_id || !m3_id) throw Error("internal: motion's metrics are not registered");
    // Upstream uses the frames 0..n-1 that have a score, stopping at the first gap.
    std::vector<double> score;
    while (table.written(*sad_id, score.size())) score.push_back(*table.get(*sad_id, score.size()));
    const auto n = static_cast<unsigned>(score.size());
    std::vector<double> m2(n), m3(n);
    motion::temporal_scores(score.data(), n, c_.temporal, m2.data(), m3.data());
    for (unsigned i = 0; i < n; ++i) {
      table.set(*m2_id, i, m2[i]);
      table.set(*m3_id, i, m3[i]);
    }
  }

 private:
  OptionValues options_;
  MotionConfig c_;
};

void MotionWorker::extract(const FrameInput& in, FrameOutput& out) {
  double score = 0.;
  const unsigned back = motion::first_scored_frame(c_.temporal.five_frame_window);
  if (!c_.force_zero && in.index >= back) {
    if (in.prev_ref.size() < back)
      throw Error(fmt::format("internal: motion at frame {} got {} previous frames, needs {}", in.index,
                              in.prev_ref.size(), back));
    const PictureView& earlier = in.prev_ref[back - 1];
    std::uint64_t sad;
    if (c_.bpc == 8) {
      sad = frame_sad_8bit(earlier.row<std::uint8_t>(0, 0), earlier.stride[0], in.ref.row<std::uint8_t>(0, 0),
                           in.ref.stride[0], c_.w, c_.h, y_row_.data());
    } else {
      sad = frame_sad_hbd(earlier.row<std::uint16_t>(0, 0), earlier.stride[0] / 2, in.ref.row<std::uint16_t>(0, 0),
                          in.ref.stride[0] / 2, c_.w, c_.h, c_.bpc, y_row_.data());
    }
    score = motion::sad_score(sad, c_.w, c_.h, c_.fps_weight, c_.temporal.max_val);
  }
  out.set(0, score);
  if (c_.debug) out.set(c_.slot_debug, score);
}

}  // namespace

FeatureInfo motion_feature_info() {
  FeatureInfo f;
  f.name = "motion";
  f.help =
      "integer motion: blurred luma difference to the previous reference frame "
      "(VMAF_integer_feature_motion_sad_score, integer_motion2, integer_motion3)";
  f.options = {
      {"motion_force_zero", OptionType::boolean, false, 0, 0, "forcing motion score to zero", true, "force_0"},
      {"motion_blend_factor", OptionType::real, 1.0, 0.0, 1.0, "blend motion score given an offset", true, "mbf"},
      {"motion_blend_offset", OptionType::real, 40.0, 0.0, 1000.0, "blend motion score starting from this offset",
       true, "mbo"},
      {"motion_fps_weight", OptionType::real, 1.0, 0.0, 5.0, "fps-aware multiplicative weight/correction", true,
       "mfw"},
      {"motion_max_val", OptionType::real, 10000.0, 0.0, 10000.0,
       "maximum value allowed; larger values will be clipped to this value", true, "mmxv"},
      {"motion_five_frame_window", OptionType::boolean, false, 0, 0,
       "use five-frame temporal window (compare with the reference two frames back)", true, "mffw"},
      {"motion_moving_average", OptionType::boolean, false, 0, 0,
       "use moving average for motion scores after first frame", true, "mma"},
      {"debug", OptionType::boolean, false, 0, 0, "debug mode: enable additional output (integer_motion)"},
  };
  f.provided = {sad_name, motion2_name, motion3_name};
  f.luma_only = true;
  f.every_frame = true;  // upstream flags motion PREV_REF
  f.create = [](const OptionValues& o) { return std::make_unique<MotionExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
