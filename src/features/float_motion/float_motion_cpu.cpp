// float_motion on the CPU. Frames are independent: frame n blurs the
// reference frames n - 1 (through the history mechanism) and n itself, so
// any number of threads run them; the scores are kept by the extractor and
// motion2/motion3 are written at flush (float_motion_math.hpp).
#include <mutex>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/scores.hpp"
#include "features/common/filter_rows.hpp"
#include "features/common/separable_filter.hpp"
#include "features/common/vif_tools.hpp"
#include "features/float_motion/float_motion_cuda.hpp"
#include "features/float_motion/float_motion_host.hpp"
#include "features/float_motion/float_motion_math.hpp"
#include "features/registry.hpp"

namespace exactvmaf {

namespace float_motion {

void init(Config& c, const OptionValues& o, const VideoFormat& fmt) {
  c.bpc = fmt.bitdepth;
  if (c.bpc != 8 && c.bpc != 10 && c.bpc != 12 && c.bpc != 16)
    throw Error(fmt::format("--feature float_motion: bit depth {} is not supported (8, 10, 12, 16)", c.bpc));
  c.debug = o.get_bool("debug");
  c.force_zero = o.get_bool("motion_force_zero");
  c.add_scale1 = o.get_bool("motion_add_scale1");
  c.add_uv = o.get_bool("motion_add_uv");
  c.temporal.fps_weight = o.get_real("motion_fps_weight");
  c.temporal.blend_factor = o.get_real("motion_blend_factor");
  c.temporal.blend_offset = o.get_real("motion_blend_offset");
  c.temporal.max_val = o.get_real("motion_max_val");
  c.blur = blur_filter(static_cast<int>(o.get_int("motion_filter_size")));
  if (c.add_uv && fmt.pix_fmt == PixelFormat::yuv400)
    throw Error("--feature float_motion: motion_add_uv needs chroma planes; the input is 4:0:0");
  // Upstream halves chroma planes narrower than luma with a stride computed
  // from their own width while they are stored with the luma's: it reads
  // the wrong samples (and uninitialised memory). Refused.
  if (c.add_uv && c.add_scale1 && fmt.pix_fmt != PixelFormat::yuv444)
    throw Error("--feature float_motion: motion_add_uv with motion_add_scale1 is only defined for 4:4:4 input "
                "(upstream reads 4:2:0 and 4:2:2 chroma with the luma's stride there)");
  c.planes.clear();
  for (unsigned p = 0; p < (c.add_uv ? 3u : 1u); ++p) {
    Plane pl;
    pl.index = p;
    pl.w = static_cast<int>(fmt.picture_width(p));
    pl.h = static_cast<int>(fmt.picture_height(p));
    if (pl.w < static_cast<int>(min_plane_size) || pl.h < static_cast<int>(min_plane_size))
      throw Error(fmt::format("--feature float_motion: the {} plane is {}x{}; float_motion needs at least {}x{} "
                              "samples",
                              p == 0 ? "luma" : "chroma", pl.w, pl.h, min_plane_size, min_plane_size));
    if (c.add_scale1) {
      pl.half_w = half_size(pl.w);
      pl.half_h = half_size(pl.h);
      pl.half = vif_tools::make_scale_tables(vif_tools::ScaleMethod::bilinear, static_cast<unsigned>(pl.w),
                                             static_cast<unsigned>(pl.h), static_cast<unsigned>(pl.half_w),
                                             static_cast<unsigned>(pl.half_h));
    }
    c.planes.push_back(std::move(pl));
  }
  std::vector<const char*> base = {"motion2"};
  if (c.force_zero) {
    base.push_back("motion3");
    if (c.debug) base.push_back("motion");
  } else {
    if (c.debug) base.push_back("motion");
    base.push_back("motion3");
  }
  c.names.clear();
  for (const char* b : base) c.names.push_back(feature_output_name(b, o));
}

void finish_frame(const Config& c, std::uint64_t index, double score, FrameOutput& out, FrameScores& kept) {
  if (c.force_zero) {
    for (unsigned s = 0; s < c.names.size(); ++s) out.set(s, 0.0);
    return;
  }
  if (index == 0) {
    out.set(0, 0.0);  // motion2 of frame 0
    if (c.debug) out.set(1, 0.0);
  } else if (c.debug) {
    out.set(1, motion_value(score, c.temporal));
  }
  const std::lock_guard<std::mutex> lock(kept.mutex);
  if (kept.scores.size() <= index) {
    kept.scores.resize(index + 1, 0.0);
    kept.have.resize(index + 1, 0);
  }
  kept.scores[index] = score;
  kept.have[index] = 1;
}

namespace {

// picture_copy of one plane (value / scaler - 128).
template <class Sample>
void load_plane(const PictureView& pic, const Plane& pl, unsigned bpc, float* dst) {
  for (int y = 0; y < pl.h; ++y) {
    const Sample* src = pic.row<Sample>(pl.index, static_cast<unsigned>(y));
    float* d = dst + static_cast<std::ptrdiff_t>(y) * pl.w;
    for (int x = 0; x < pl.w; ++x) d[x] = vif_tools::sample_to_float(src[x], bpc);
  }
}

// vmaf_image_sad_c's float sum of |a - b| over a w x h plane (stride w).
float plane_sad(const float* a, const float* b, int w, int h) {
  float accum = 0.0f;
  for (int i = 0; i < h; ++i) {
    float line = 0.0f;
    const float* ra = a + static_cast<std::ptrdiff_t>(i) * w;
    const float* rb = b + static_cast<std::ptrdiff_t>(i) * w;
    for (int j = 0; j < w; ++j) line = add_abs_diff(line, ra[j], rb[j]);
    accum += line;
  }
  return accum;
}

class Worker final : public FeatureWorker {
 public:
  Worker(const Config& c, FrameScores& kept) : c_(c), kept_(kept) {}
  void extract(const FrameInput& in, FrameOutput& out) override;

 private:
  // vif_scale_frame_s(bilinear) of a blurred plane to the half size.
  void halve(const Plane& pl, const std::vector<float>& src, std::vector<float>& dst) const {
    dst.resize(static_cast<std::size_t>(pl.half_w) * static_cast<std::size_t>(pl.half_h));
    const PlaneRef in{src.data(), pl.w};
    for (int y = 0; y < pl.half_h; ++y)
      for (int x = 0; x < pl.half_w; ++x)
        dst[static_cast<std::size_t>(y) * static_cast<std::size_t>(pl.half_w) + static_cast<std::size_t>(x)] =
            vif_tools::scaled_sample(vif_tools::ScaleMethod::bilinear, in, pl.w, pl.h, pl.half_w, pl.half_h, x, y,
                                     pl.half.x(), pl.half.y());
  }
  void blur(const PictureView& pic, const Plane& pl, std::vector<float>& dst) {
    load_.resize(static_cast<std::size_t>(pl.w) * static_cast<std::size_t>(pl.h));
    dst.resize(load_.size());
    if (c_.bpc == 8) load_plane<std::uint8_t>(pic, pl, c_.bpc, load_.data());
    else load_plane<std::uint16_t>(pic, pl, c_.bpc, load_.data());
    filter_rows::filter_plane(c_.blur, load_.data(), pl.w, pl.w, pl.h, dst.data(), pad_);
  }
  // compute_motion of one plane: scale 0's mean plus, with add_scale1, the
  // halved planes' (a float sum).
  // `reuse`: the earlier picture's blur is the one this worker kept from the
  // frame before (upstream's blur-once order at one thread; the same floats).
  float plane_score(const PictureView& earlier, const PictureView& current, const Plane& pl, bool reuse) {
    std::vector<float>& kept = kept_blur_[pl.index];
    if (reuse) blur_a_.swap(kept);
    else blur(earlier, pl, blur_a_);
    blur(current, pl, blur_b_);
    kept = blur_b_;
    const float scale0 = mean_abs(plane_sad(blur_a_.data(), blur_b_.data(), pl.w, pl.h), pl.w, pl.h);
    if (!c_.add_scale1) return scale0;
    halve(pl, blur_a_, half_a_);
    halve(pl, blur_b_, half_b_);
    const float scale1 =
        mean_abs(plane_sad(half_a_.data(), half_b_.data(), pl.half_w, pl.half_h), pl.half_w, pl.half_h);
    return scale0 + scale1;
  }

  const Config& c_;
  FrameScores& kept_;
  std::vector<float> load_, pad_, blur_a_, blur_b_, half_a_, half_b_;
  // The blurred reference planes of frame kept_index_ (by plane index).
  std::vector<float> kept_blur_[3];
  std::uint64_t kept_index_ = 0;
  bool have_kept_ = false;
};

void Worker::extract(const FrameInput& in, FrameOutput& out) {
  double score = 0.0;
  if (!c_.force_zero && in.index > 0) {
    if (in.prev_ref.empty())
      throw InternalError(fmt::format("internal: float_motion at frame {} got no previous frame", in.index));
    // The three planes' compute_motion results, added in double.
    const bool reuse = have_kept_ && kept_index_ + 1 == in.index;
    for (const Plane& pl : c_.planes) score += static_cast<double>(plane_score(in.prev_ref[0], in.ref, pl, reuse));
    kept_index_ = in.index;
    have_kept_ = true;
  }
  finish_frame(c_, in.index, score, out, kept_);
}

class Extractor final : public FeatureExtractor {
 public:
  explicit Extractor(const OptionValues& o) : options_(o) {}
  std::vector<std::string> init(const VideoFormat& fmt) override {
    float_motion::init(c_, options_, fmt);
    kept_.scores.clear();
    kept_.have.clear();
    return c_.names;
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<Worker>(c_, kept_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return make_cuda_worker_for(c_, kept_); }
#endif
  unsigned history() const override { return c_.force_zero ? 0 : 1; }
  void flush(ScoreTable& table) override {
    if (c_.force_zero) return;  // upstream has no flush then
    const auto m2_id = table.find_metric(c_.names.front());
    const auto m3_id = table.find_metric(c_.names.back());
    if (!m2_id || !m3_id) throw InternalError("internal: float_motion's metrics are not registered");
    std::size_t n = 0;  // the frames 0..n-1 scored, up to the first gap
    while (n < kept_.have.size() && kept_.have[n]) ++n;
    std::vector<double> m2(n), m3(n);
    temporal_scores(kept_.scores.data(), n, c_.temporal, m2.data(), m3.data());
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0) table.set(*m2_id, i, m2[i]);
      table.set(*m3_id, i, m3[i]);
    }
  }

 private:
  OptionValues options_;
  Config c_;
  FrameScores kept_;
};

}  // namespace

}  // namespace float_motion

FeatureInfo float_motion_feature_info() {
  FeatureInfo f;
  f.name = "float_motion";
  f.help = "motion: mean absolute difference of the blurred luma to the previous reference frame, in float "
           "(motion2, motion, motion3)";
  f.options = {
      {"debug", OptionType::boolean, true, 0, 0, "debug mode: enable additional output (motion)"},
      {"motion_force_zero", OptionType::boolean, false, 0, 0, "forcing motion score to zero", true, "force_0"},
      {"motion_fps_weight", OptionType::real, 1.0, 0.0, 5.0, "fps-aware multiplicative weight/correction", true,
       "mfw"},
      {"motion_blend_factor", OptionType::real, 1.0, 0.0, 1.0, "blend motion score given an offset", true, "mbf"},
      {"motion_blend_offset", OptionType::real, 40.0, 0.0, 1000.0, "blend motion score starting from this offset",
       true, "mbo"},
      {"motion_add_scale1", OptionType::boolean, false, 0, 0, "add motion score from scale1", true, "mdc"},
      {"motion_filter_size", OptionType::integer, std::int64_t{5}, 0, 9,
       "filtering size: 1 (no blur), 3, or 5 (any other value)", true, "mfs"},
      {"motion_add_uv", OptionType::boolean, false, 0, 0, "include U and V terms", true, "mau"},
      {"motion_max_val", OptionType::real, 10000.0, 0.0, 10000.0,
       "maximum value allowed; larger values will be clipped to this value", true, "mmxv"},
  };
  f.provided = {"motion2", "motion", "motion3"};
  f.luma_only = false;
  f.chroma_option = "motion_add_uv";
  f.every_frame = true;
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;  // upstream flags float_motion TEMPORAL
  f.create = [](const OptionValues& o) { return std::make_unique<float_motion::Extractor>(o); };
  return f;
}

}  // namespace exactvmaf
