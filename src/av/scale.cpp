// --scale: the R scaler (io/rscale.hpp, libswscale's bytes without it) for
// resizing, libswscale set up as FFmpeg's scale filter sets it up (with
// SWS_BITEXACT | SWS_ACCURATE_RND) for pixel format conversion and what the
// R scaler refuses, and ab-av1's automatic choice (docs/input.md, "Scaling").
extern "C" {
#include <libswscale/swscale.h>
}

#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "av/av_input.hpp"
#include "av/av_library.hpp"
#include "av/av_util.hpp"
#include "exactvmaf/error.hpp"
#include "io/y4m_header.hpp"

namespace exactvmaf::av {
namespace {

int sws_flag_of(ScaleAlgorithm a) {
  switch (a) {
    case ScaleAlgorithm::bilinear: return SWS_BILINEAR;
    case ScaleAlgorithm::lanczos: return SWS_LANCZOS;
    case ScaleAlgorithm::bicubic: break;
  }
  return SWS_BICUBIC;
}

// av_rescale(a, b, c) for a, b >= 0, c > 0: a * b / c rounded to nearest, halves up.
std::int64_t rescale(std::int64_t a, std::int64_t b, std::int64_t c) { return (a * b + c / 2) / c; }

bool parse_int(std::string_view s, int& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

std::string format_text(PixelFormat f, unsigned depth) { return fmt::format("{} {}-bit", pixel_format_name(f), depth); }

class ScaledReader final : public VideoReader {
 public:
  ScaledReader(std::unique_ptr<VideoReader> in, const ScaleStep& step) : in_(std::move(in)) {
    const VideoInfo& src_info = in_->info();
    const VideoFormat src = src_info.format;
    info_ = src_info;
    VideoFormat mid = src;
    if (step.convert_to) {
      mid.pix_fmt = step.convert_to->first;
      mid.bitdepth = step.convert_to->second;
    }
    const auto [w, h] = scaled_size(src.width, src.height, step);
    VideoFormat out = mid;
    out.width = w;
    out.height = h;
    if (out.packed_frame_bytes() > io::kMaxFrameBytes)
      throw Error(fmt::format("{}: scaled to {}, a frame is over the limit of {} bytes", in_->path(), out.describe(),
                              io::kMaxFrameBytes));
    std::string what;
    if (!(mid == src)) {
      // ab-av1's format=: FFmpeg converts with its default scaler flags (bicubic).
      convert_ = make_sws(in_->path(), static_cast<int>(src.width), static_cast<int>(src.height),
                          buffer_pix_fmt(src.pix_fmt, src.bitdepth), static_cast<int>(mid.width),
                          static_cast<int>(mid.height), buffer_pix_fmt(mid.pix_fmt, mid.bitdepth), SWS_BICUBIC,
                          src_info.range);
      src_buf_ = std::make_unique<FrameBuffer>(src);
      what = format_text(src.pix_fmt, src.bitdepth) + " -> " + format_text(mid.pix_fmt, mid.bitdepth);
    }
    if (!(out == mid)) {
      // The R scaler where it applies (the bytes libswscale gives, defined
      // without it, as on the GPU); libswscale for the rest.
      try {
        rscale_ = std::make_unique<io::RScalePlan>(mid, out.width, out.height, rscale_algorithm(step.algorithm));
      } catch (const Error&) {
        scale_ = make_sws(in_->path(), static_cast<int>(mid.width), static_cast<int>(mid.height),
                          buffer_pix_fmt(mid.pix_fmt, mid.bitdepth), static_cast<int>(out.width),
                          static_cast<int>(out.height), buffer_pix_fmt(out.pix_fmt, out.bitdepth),
                          sws_flag_of(step.algorithm), src_info.range);
      }
      if (convert_) mid_buf_ = std::make_unique<FrameBuffer>(mid);
      else src_buf_ = std::make_unique<FrameBuffer>(src);
      if (!what.empty()) what += ", then ";
      what += fmt::format("{}x{} -> {}x{} {} ({})", mid.width, mid.height, out.width, out.height,
                          scale_algorithm_name(step.algorithm), rscale_ ? "R scaler" : "libswscale");
    }
    info_.format = out;
    info_.scaling = what;
    // Frame counts and rates are the input's; random access is not offered.
    info_.frame_count = src_info.frame_count;
  }
  ~ScaledReader() override {
    lib().sws_freeContext(convert_);
    lib().sws_freeContext(scale_);
  }
  ScaledReader(const ScaledReader&) = delete;
  ScaledReader& operator=(const ScaledReader&) = delete;

  const VideoInfo& info() const override { return info_; }
  const std::string& path() const override { return in_->path(); }
  std::uint64_t frames_read() const override { return in_->frames_read(); }
  bool skip_frame() override { return in_->skip_frame(); }
  // Every plane is scaled (libswscale has no luma-only mode): the input reads all of them.
  void set_luma_only(bool) override {}

  bool read_frame(FrameBuffer& dst) override {
    io::check_buffer_format(in_->path(), dst, info_.format);
    if (!src_buf_) return in_->read_frame(dst);  // nothing to change
    if (!in_->read_frame(*src_buf_)) return false;
    if (src_buf_->on_device())
      throw InternalError(in_->path() + ": internal: a frame in device memory reached the host scaler");
    const FrameBuffer* from = src_buf_.get();
    if (convert_) {
      FrameBuffer& to = mid_buf_ ? *mid_buf_ : dst;
      run(convert_, *from, to);
      from = &to;
    }
    if (scale_) run(scale_, *from, dst);
    if (rscale_) rscale_->scale(from->view(), dst);
    dst.set_on_device(false);
    dst.set_timestamp(src_buf_->timestamp());
    return true;
  }

 private:
  void run(SwsContext* s, const FrameBuffer& from, FrameBuffer& to) {
    const std::uint8_t* src[4] = {from.plane(0), from.plane(1), from.plane(2), nullptr};
    int src_stride[4] = {static_cast<int>(from.stride(0)), static_cast<int>(from.stride(1)),
                         static_cast<int>(from.stride(2)), 0};
    std::uint8_t* dst[4] = {to.plane(0), to.plane(1), to.plane(2), nullptr};
    int dst_stride[4] = {static_cast<int>(to.stride(0)), static_cast<int>(to.stride(1)),
                         static_cast<int>(to.stride(2)), 0};
    const int h = static_cast<int>(from.format().height);
    const int rows = lib().sws_scale(s, src, src_stride, 0, h, dst, dst_stride);
    if (rows <= 0) throw Error(fmt::format("{}: libswscale failed on frame {}", in_->path(), in_->frames_read()));
  }

  std::unique_ptr<VideoReader> in_;
  VideoInfo info_;
  SwsContext* convert_ = nullptr;
  SwsContext* scale_ = nullptr;
  std::unique_ptr<io::RScalePlan> rscale_;
  std::unique_ptr<FrameBuffer> src_buf_, mid_buf_;
};

}  // namespace

io::RScaleAlgorithm rscale_algorithm(ScaleAlgorithm a) {
  switch (a) {
    case ScaleAlgorithm::bilinear: return io::RScaleAlgorithm::bilinear;
    case ScaleAlgorithm::lanczos: return io::RScaleAlgorithm::lanczos;
    case ScaleAlgorithm::bicubic: break;
  }
  return io::RScaleAlgorithm::bicubic;
}

const char* scale_algorithm_name(ScaleAlgorithm a) {
  switch (a) {
    case ScaleAlgorithm::bilinear: return "bilinear";
    case ScaleAlgorithm::lanczos: return "lanczos";
    case ScaleAlgorithm::bicubic: break;
  }
  return "bicubic";
}

ScaleRequest parse_scale(const std::string& text) {
  ScaleRequest r;
  if (text == "auto") {
    r.automatic = true;
    return r;
  }
  const auto bad = [&] {
    return Error(fmt::format("--scale {}: expected WxH[:bicubic|bilinear|lanczos] (W or H -1 keeps the aspect "
                             "ratio, -N also rounds to a multiple of N) or auto",
                             text));
  };
  std::string_view s = text;
  const auto colon = s.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view alg = s.substr(colon + 1);
    if (alg == "bicubic") r.algorithm = ScaleAlgorithm::bicubic;
    else if (alg == "bilinear") r.algorithm = ScaleAlgorithm::bilinear;
    else if (alg == "lanczos") r.algorithm = ScaleAlgorithm::lanczos;
    else throw bad();
    s = s.substr(0, colon);
  }
  const auto x = s.find('x');
  if (x == std::string_view::npos || !parse_int(s.substr(0, x), r.width) || !parse_int(s.substr(x + 1), r.height))
    throw bad();
  const auto dim_ok = [](int v) { return v >= -static_cast<int>(io::kMaxDimension) && v <= static_cast<int>(io::kMaxDimension) && v != 0; };
  if (!dim_ok(r.width) || !dim_ok(r.height)) throw bad();
  return r;
}

std::pair<unsigned, unsigned> scaled_size(unsigned in_w, unsigned in_h, const ScaleStep& step) {
  // FFmpeg 5.1's ff_scale_adjust_dimensions (libavfilter/scale_eval.c).
  std::int64_t w = step.width, h = step.height;
  const std::int64_t factor_w = w < -1 ? -w : 1, factor_h = h < -1 ? -h : 1;
  if (w < 0 && h < 0) {
    w = in_w;
    h = in_h;
  }
  if (w < 0) w = rescale(h, in_w, std::int64_t{in_h} * factor_w) * factor_w;
  if (h < 0) h = rescale(w, in_h, std::int64_t{in_w} * factor_h) * factor_h;
  if (w <= 0 || h <= 0 || w > io::kMaxDimension || h > io::kMaxDimension)
    throw Error(fmt::format("--scale {}x{}: a {}x{} input would be {}x{}, out of range", step.width, step.height,
                            in_w, in_h, w, h));
  return {static_cast<unsigned>(w), static_cast<unsigned>(h)};
}

AutoScale ab_av1_auto_scale(unsigned w, unsigned h, const std::vector<std::string>& models) {
  // ab-av1 VmafModel::from_args: no model argument -> none; exactly one ->
  // recognised by how it ends; more than one -> a custom model.
  enum class Model { none, v061, v061_4k, v1016_1080, v1016_2160, custom } model = Model::none;
  const auto ends_with = [](const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (models.size() == 1) {
    const std::string& m = models[0];
    model = Model::custom;
    if (ends_with(m, "version=vmaf_v0.6.1")) model = Model::v061;
    else if (ends_with(m, "version=vmaf_4k_v0.6.1")) model = Model::v061_4k;
    for (const char* v : {"version=vmaf_v1.0.16_3d0h", "version=vmaf_v1.0.16_hfr_3d0h", "version=vmaf_v1.0.16_5d0h",
                          "version=vmaf_v1.0.16_hfr_5d0h"})
      if (ends_with(m, v)) model = Model::v1016_1080;
    for (const char* v : {"version=vmaf_v1.0.16_1d5h_2160", "version=vmaf_v1.0.16_hfr_1d5h_2160",
                          "version=vmaf_v1.0.16_3d0h_2160", "version=vmaf_v1.0.16_hfr_3d0h_2160"})
      if (ends_with(m, v)) model = Model::v1016_2160;
  } else if (models.size() > 1) {
    model = Model::custom;
  }
  AutoScale a;
  // ffmpeg_lavfi: "for >2k resolutions use 4k model".
  if (model == Model::none && w > 2560 && h > 1440) {
    a.default_model = "vmaf_4k_v0.6.1";
    model = Model::v061_4k;
  }
  if (model == Model::none) model = Model::v061;  // model.unwrap_or_default()
  // minimally_scale: the smallest scale=W:H that meets one of the target's bounds.
  const auto minimally = [&](unsigned tw, unsigned th) -> std::pair<int, int> {
    const double wf = static_cast<double>(w) / tw, hf = static_cast<double>(h) / th;
    if (hf > wf) return {-1, static_cast<int>(th)};
    return {static_cast<int>(tw), -1};
  };
  const bool wants_1080 = model == Model::v061 || model == Model::v1016_1080;
  const bool wants_2160 = model == Model::v061_4k || model == Model::v1016_2160;
  if (wants_1080 && w < 1728 && h < 972) a.size = minimally(1920, 1080);
  else if (wants_2160 && w < 3456 && h < 1944) a.size = minimally(3840, 2160);
  return a;
}

std::unique_ptr<VideoReader> scale_reader(std::unique_ptr<VideoReader> in, const ScaleStep& step) {
  const VideoFormat& f = in->info().format;
  const auto [w, h] = scaled_size(f.width, f.height, step);
  const bool convert = step.convert_to && (step.convert_to->first != f.pix_fmt || step.convert_to->second != f.bitdepth);
  if (!convert && w == f.width && h == f.height) return in;  // FFmpeg's scale filter passes such frames through
  return std::make_unique<ScaledReader>(std::move(in), step);
}

}  // namespace exactvmaf::av
