// Integer motion on the CPU (libvmaf's "motion" extractor): per-frame SAD of
// the blurred reference difference in motion_math.hpp; motion2/motion3 from
// all frames' scores at flush.
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/simd.hpp"
#include "features/motion/motion_cuda.hpp"
#include "features/motion/motion_host.hpp"
#include "features/motion/motion_math.hpp"
#include "features/motion/motion_simd.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace motion {

namespace {
constexpr const char* sad_name = "VMAF_integer_feature_motion_sad_score";
constexpr const char* debug_name = "integer_motion";
constexpr const char* motion2_name = "integer_motion2";
constexpr const char* motion3_name = "integer_motion3";
}  // namespace

Config config_from_options(const OptionValues& o) {
  Config c;
  c.force_zero = o.get_bool("motion_force_zero");
  c.debug = o.get_bool("debug");
  c.fps_weight = o.get_real("motion_fps_weight");
  c.temporal.blend_factor = o.get_real("motion_blend_factor");
  c.temporal.blend_offset = o.get_real("motion_blend_offset");
  c.temporal.max_val = o.get_real("motion_max_val");
  c.temporal.five_frame_window = o.get_bool("motion_five_frame_window");
  c.temporal.moving_average = o.get_bool("motion_moving_average");
  return c;
}

std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt) {
  c.w = fmt.picture_width(0);
  c.h = fmt.picture_height(0);
  c.bpc = fmt.bitdepth;
  if (c.w < min_plane_size || c.h < min_plane_size)
    throw Error(fmt::format("--feature motion: the luma plane is {}x{}; motion needs at least {}x{} samples", c.w,
                            c.h, min_plane_size, min_plane_size));
  // The order in which upstream's collector first sees each name.
  std::vector<const char*> base = {sad_name};
  if (c.debug) base.push_back(debug_name);
  base.push_back(motion2_name);
  base.push_back(motion3_name);
  c.names.clear();
  for (const char* b : base) c.names.push_back(feature_output_name(b, o));
  return c.names;
}

}  // namespace motion

namespace {

using motion::Config;

class MotionWorker final : public FeatureWorker {
 public:
  // The SIMD level's kernels (same integers at every level).
  explicit MotionWorker(const Config& c) : c_(c), k_(motion::kernels_for(simd_level())), y_row_(c.w) {}
  void extract(const FrameInput& in, FrameOutput& out) override;

 private:
  const Config& c_;
  const motion::Kernels& k_;
  std::vector<std::int32_t> y_row_;  // per-thread scratch: one row of the vertical pass
};

class MotionExtractor final : public FeatureExtractor {
 public:
  explicit MotionExtractor(const OptionValues& o) : options_(o), c_(motion::config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return motion::init(c_, options_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<MotionWorker>(c_); }
  unsigned history() const override { return c_.back(); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return motion::make_cuda_worker(c_); }
#endif

  void flush(ScoreTable& table) override {
    const auto sad_id = table.find_metric(c_.names.front());
    const auto m2_id = table.find_metric(c_.names[c_.names.size() - 2]);
    const auto m3_id = table.find_metric(c_.names.back());
    if (!sad_id || !m2_id || !m3_id) throw InternalError("internal: motion's metrics are not registered");
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
  Config c_;
};

void MotionWorker::extract(const FrameInput& in, FrameOutput& out) {
  const unsigned back = c_.back();
  std::uint64_t sad = 0;
  if (!c_.force_zero && in.index >= back) {
    if (in.prev_ref.size() < back)
      throw InternalError(fmt::format("internal: motion at frame {} got {} previous frames, needs {}", in.index,
                              in.prev_ref.size(), back));
    const PictureView& earlier = in.prev_ref[back - 1];
    if (c_.bpc == 8) {
      sad = k_.frame_sad_u8(earlier.row<std::uint8_t>(0, 0), earlier.stride[0], in.ref.row<std::uint8_t>(0, 0),
                            in.ref.stride[0], c_.w, c_.h, y_row_.data());
    } else {
      sad = k_.frame_sad_u16(earlier.row<std::uint16_t>(0, 0), earlier.stride[0] / 2,
                             in.ref.row<std::uint16_t>(0, 0), in.ref.stride[0] / 2, c_.w, c_.h, c_.bpc,
                             y_row_.data());
    }
  }
  motion::write_frame_outputs(c_, in.index, sad, out);
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
  f.provided = {motion::sad_name, motion::motion2_name, motion::motion3_name};
  f.luma_only = true;
  f.every_frame = true;  // upstream flags motion PREV_REF
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<MotionExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
