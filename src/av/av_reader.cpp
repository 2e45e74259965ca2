// The libav reader: libavformat demuxes one video stream, libavcodec decodes
// it (frame and slice threads), and each decoded frame is written into the
// pipeline's frame buffer once: a row copy when the decoder's layout is one
// the features read (planar 4:2:0/4:2:2/4:4:4 at 8/10/12/16 bits, native
// endian; gray with neutral chroma), else one libswscale pass straight into
// the buffer (nv12, p010, rgb, ...: warned). Packets and frames are reused,
// other streams are discarded by the demuxer: memory stays flat.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#if EXACTVMAF_AV_HWDEC_CUDA
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#endif
}

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "av/av_input.hpp"
#include "av/av_library.hpp"
#include "av/av_util.hpp"
#if EXACTVMAF_AV_HWDEC_CUDA
#include "backends/cuda/frame_import.hpp"
#endif
#include "exactvmaf/error.hpp"
#include "io/warnings.hpp"
#include "io/y4m_header.hpp"

namespace exactvmaf::av {
namespace {

std::string stream_list(const AVFormatContext* fc) {
  if (fc->nb_streams == 0) return "no streams";
  std::string s = "streams:";
  for (unsigned i = 0; i < fc->nb_streams; ++i) {
    const AVCodecParameters* p = fc->streams[i]->codecpar;
    const char* type = lib().av_get_media_type_string(p->codec_type);
    s += fmt::format("{} {} {} {}", i ? "," : "", i, type ? type : "unknown", lib().avcodec_get_name(p->codec_id));
    if (fc->streams[i]->disposition & AV_DISPOSITION_ATTACHED_PIC) s += " (attached picture)";
  }
  return s;
}

// What the features read, and how a decoder's format gets there.
enum class Path { copy, gray, convert };

struct Layout {
  Path path = Path::convert;
  VideoFormat format;  // width/height filled by the caller
  std::string note;    // the conversion, for the warning and VideoInfo::conversion
};

unsigned supported_depth(int depth) { return depth <= 8 ? 8 : depth <= 10 ? 10 : depth <= 12 ? 12 : 16; }

bool native_endian(const AVPixFmtDescriptor* d) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return (d->flags & AV_PIX_FMT_FLAG_BE) || d->comp[0].depth <= 8;
#else
  return !(d->flags & AV_PIX_FMT_FLAG_BE);
#endif
}

// The layout of decoder format `f` (throws for the ones we cannot read).
Layout layout_of(const std::string& path, AVPixelFormat f) {
  const AVPixFmtDescriptor* d = lib().av_pix_fmt_desc_get(f);
  if (!d) throw Error(fmt::format("{}: the decoder gave no pixel format", path));
  const char* name = d->name;
  if (d->flags & AV_PIX_FMT_FLAG_HWACCEL)
    throw Error(fmt::format("{}: pixel format {} is a hardware format (not supported)", path, name));
  Layout l;
  const int depth = d->comp[0].depth;
  const bool rgb = (d->flags & AV_PIX_FMT_FLAG_RGB) != 0;
  const bool planar = (d->flags & AV_PIX_FMT_FLAG_PLANAR) != 0;
  const bool plain_depth = depth == 8 || depth == 10 || depth == 12 || depth == 16;
  const unsigned bytes = depth > 8 ? 2 : 1;
  auto plain_plane = [&](int c, int plane) {
    const AVComponentDescriptor& k = d->comp[c];
    return k.plane == plane && k.step == static_cast<int>(bytes) && k.offset == 0 && k.shift == 0 && k.depth == depth;
  };
  if (!rgb && !(d->flags & (AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM)) &&
      plain_depth && native_endian(d)) {
    if (d->nb_components == 1 && plain_plane(0, 0)) {
      l.path = Path::gray;
      l.format.pix_fmt = PixelFormat::yuv420;
      l.format.bitdepth = static_cast<unsigned>(depth);
      l.note = fmt::format("{}: luma as decoded, chroma set to {} (4:2:0), as libvmaf's y4m reader does for mono",
                           name, 1u << (depth - 1));
      return l;
    }
    if (planar && d->nb_components >= 3 && plain_plane(0, 0) && plain_plane(1, 1) && plain_plane(2, 2)) {
      const int cw = d->log2_chroma_w, ch = d->log2_chroma_h;
      if ((cw == 1 && ch == 1) || (cw == 1 && ch == 0) || (cw == 0 && ch == 0)) {
        l.path = Path::copy;
        l.format.pix_fmt = cw == 0 ? PixelFormat::yuv444 : ch == 1 ? PixelFormat::yuv420 : PixelFormat::yuv422;
        l.format.bitdepth = static_cast<unsigned>(depth);
        if (d->nb_components == 4) l.note = fmt::format("{}: alpha plane ignored", name);
        // yuvj*: yuv* marked full range (JPEG). The samples are scored as
        // decoded, as for any full-range input (VMAF has no range option).
        if (std::strncmp(name, "yuvj", 4) == 0)
          l.note = fmt::format("{}: full-range samples scored as decoded (no range conversion)", name);
        return l;
      }
    }
  }
  // Everything else through libswscale: to the nearest layout we read.
  if ((d->flags & AV_PIX_FMT_FLAG_FLOAT) || !lib().sws_isSupportedInput(f))
    throw Error(fmt::format("{}: pixel format {} is not supported ({} cannot convert it)", path, name,
                            scaler_version()));
  int max_depth = 0;
  for (int c = 0; c < d->nb_components; ++c) max_depth = std::max(max_depth, d->comp[c].depth);
  l.format.bitdepth = supported_depth(max_depth);
  const int cw = d->log2_chroma_w, ch = d->log2_chroma_h;
  if (rgb || (d->flags & AV_PIX_FMT_FLAG_PAL)) l.format.pix_fmt = PixelFormat::yuv444;
  else if (d->nb_components <= 2) l.format.pix_fmt = PixelFormat::yuv420;  // gray with alpha, mono
  else if (cw == 0) l.format.pix_fmt = PixelFormat::yuv444;                   // 444, 440
  else if (ch == 0) l.format.pix_fmt = PixelFormat::yuv422;                   // 422, 411
  else l.format.pix_fmt = PixelFormat::yuv420;                                // 420, 410
  l.path = Path::convert;
  l.note = fmt::format("{} converted to {} {}-bit{} with {} ({})", name, pixel_format_name(l.format.pix_fmt),
                       l.format.bitdepth, rgb || (d->flags & AV_PIX_FMT_FLAG_PAL) ? " (BT.601 matrix, limited range)" : "",
                       scaler_version(), sws_flags_text(SWS_BICUBIC));
  return l;
}

// Why the GPU's decoder is not used for an input found while opening it:
// open_av() then opens the input again for the CPU's decoders (the scores
// are the same), saying why.
struct GpuDecodingRefused {
  std::string why;
};

#if EXACTVMAF_AV_HWDEC_CUDA
// libavcodec's format negotiation with --hwdec cuda: frames in device memory
// when offered (a hwaccel that then fails to start is dropped by libavcodec,
// which asks again), else the first software format, as by default.
AVPixelFormat cuda_or_software(AVCodecContext*, const AVPixelFormat* formats) {
  for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f)
    if (*f == AV_PIX_FMT_CUDA) return *f;
  for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f) {
    const AVPixFmtDescriptor* d = lib().av_pix_fmt_desc_get(*f);
    if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *f;
  }
  return AV_PIX_FMT_NONE;
}

bool has_cuda_config(const AVCodec* codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* c = lib().avcodec_get_hw_config(codec, i);
    if (!c) return false;
    if (c->device_type == AV_HWDEVICE_TYPE_CUDA && c->pix_fmt == AV_PIX_FMT_CUDA &&
        (c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
      return true;
  }
}
#endif

class AvReader final : public VideoReader {
 public:
  AvReader(const std::string& path, const ReaderOptions& opts) : path_(path) {
    install_log_handler();
    pkt_ = lib().av_packet_alloc();
    frame_ = lib().av_frame_alloc();
    if (!pkt_ || !frame_) throw Error(path_ + ": out of memory");
    try {
      open(opts);
    } catch (...) {
      release();
      throw;
    }
  }
  ~AvReader() override { release(); }
  AvReader(const AvReader&) = delete;
  AvReader& operator=(const AvReader&) = delete;

  const VideoInfo& info() const override { return info_; }
  const std::string& path() const override { return path_; }
  std::uint64_t frames_read() const override { return frames_; }
  void set_luma_only(bool luma_only) override { luma_only_ = luma_only; }

  // Opened for the CPU's decoders after GpuDecodingRefused: says why (the
  // summary line), and warns when --hwdec cuda asked for the GPU.
  void note_gpu_not_used(const std::string& why, bool warn) {
    info_.hw_decoder = "hwdec: " + why + "; decoded on the CPU";
    if (warn) io::warn(path_ + ": --hwdec cuda: " + why + "; decoding on the CPU");
  }

  bool read_frame(FrameBuffer& dst) override {
    io::check_buffer_format(path_, dst, info_.format);
    if (!next_frame()) return false;
    write(dst);
    lib().av_frame_unref(frame_);
    ++frames_;
    return true;
  }

  bool skip_frame() override {
    if (!next_frame()) return false;
    lib().av_frame_unref(frame_);
    ++frames_;
    return true;
  }

 private:
  void open(const ReaderOptions& opts) {
    clear_logged_error();
    // "file:": a name with a colon is a file, never another protocol (no URLs).
    int ret = lib().avformat_open_input(&fc_, ("file:" + path_).c_str(), nullptr, nullptr);
    if (ret < 0) throw Error(fmt::format("{}: not a video file FFmpeg can read ({})", path_, error_text(ret)));
    clear_logged_error();
    ret = lib().avformat_find_stream_info(fc_, nullptr);
    if (ret < 0)
      throw Error(fmt::format("{}: cannot read the streams of this {} file ({})", path_, fc_->iformat->name,
                              error_text(ret)));
    choose_stream(opts);
    AVStream* st = fc_->streams[stream_];
    for (unsigned i = 0; i < fc_->nb_streams; ++i)
      if (static_cast<int>(i) != stream_) fc_->streams[i]->discard = AVDISCARD_ALL;

    if (st->codecpar->codec_id == AV_CODEC_ID_NONE)
      throw Error(fmt::format("{}: stream {}: unknown codec (a truncated or damaged file?)", path_, stream_));
    const AVCodec* codec = lib().avcodec_find_decoder(st->codecpar->codec_id);
    if (!codec)
      throw Error(fmt::format("{}: stream {}: this FFmpeg has no decoder for {} ({})", path_, stream_,
                              lib().avcodec_get_name(st->codecpar->codec_id), libav_versions()));
    dec_ = lib().avcodec_alloc_context3(codec);
    if (!dec_) throw Error(path_ + ": out of memory");
    ret = lib().avcodec_parameters_to_context(dec_, st->codecpar);
    if (ret < 0) throw Error(fmt::format("{}: stream {}: {}", path_, stream_, error_text(ret)));
    dec_->pkt_timebase = st->time_base;
    dec_->thread_count = static_cast<int>(opts.threads);
    dec_->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    if (opts.hwdec_gpu >= 0) use_gpu_decoder(codec, opts);
    clear_logged_error();
    ret = lib().avcodec_open2(dec_, codec, nullptr);
    if (ret < 0)
      throw Error(fmt::format("{}: cannot open the {} decoder ({})", path_, codec->name, error_text(ret)));

    info_.container = fc_->iformat->name;
    info_.codec = lib().avcodec_get_name(st->codecpar->codec_id);
    if (std::strcmp(codec->name, info_.codec.c_str()) != 0) info_.codec += fmt::format(" ({})", codec->name);
    time_base_ = st->time_base;
    info_.time_base_num = static_cast<unsigned>(std::max(0, time_base_.num));
    info_.time_base_den = static_cast<unsigned>(std::max(0, time_base_.den));
    const AVRational rate = lib().av_guess_frame_rate(fc_, st, nullptr);
    if (rate.num > 0 && rate.den > 0) {
      info_.fps_num = static_cast<unsigned>(rate.num);
      info_.fps_den = static_cast<unsigned>(rate.den);
    }
    // What the container says the video lasts (its own duration; the file's
    // only when the video is its only stream: audio may run longer).
    if (st->duration != AV_NOPTS_VALUE && st->duration > 0) declared_seconds_ = static_cast<double>(st->duration) * av_q2d(st->time_base);
    else if (fc_->nb_streams == 1 && fc_->duration != AV_NOPTS_VALUE && fc_->duration > 0)
      declared_seconds_ = static_cast<double>(fc_->duration) / AV_TIME_BASE;
    if (st->nb_frames > 0) {
      info_.frame_count_estimate = static_cast<std::uint64_t>(st->nb_frames);
    } else if (info_.fps_num) {
      double seconds = -1;
      if (st->duration != AV_NOPTS_VALUE && st->duration > 0) seconds = static_cast<double>(st->duration) * av_q2d(st->time_base);
      else if (fc_->duration != AV_NOPTS_VALUE && fc_->duration > 0) seconds = static_cast<double>(fc_->duration) / AV_TIME_BASE;
      if (seconds > 0)
        info_.frame_count_estimate =
            static_cast<std::uint64_t>(seconds * info_.fps_num / info_.fps_den + 0.5);
    }

    // The first frame says what the decoder gives (the stream parameters can
    // be wrong or missing); it is kept for the first read.
    if (!decode())
      throw Error(fmt::format("{}: stream {} ({}) has no frame that decodes (a truncated or damaged file?)", path_,
                              stream_, info_.codec));
    pending_ = true;
    width_ = frame_->width;
    height_ = frame_->height;
    src_fmt_ = static_cast<AVPixelFormat>(frame_->format);
    if (width_ <= 0 || height_ <= 0 || static_cast<unsigned>(width_) > io::kMaxDimension ||
        static_cast<unsigned>(height_) > io::kMaxDimension)
      throw Error(fmt::format("{}: frame size {}x{} is out of range", path_, width_, height_));
    // Frames in device memory are described by the software format the
    // stream decodes to (the samples are the same).
    const AVPixelFormat src = src_fmt_ == AV_PIX_FMT_CUDA ? dec_->sw_pix_fmt : src_fmt_;
    if (src_fmt_ == AV_PIX_FMT_CUDA) setup_surface(opts);
    else if (hw_device_)  // the hwaccel did not start (profile, size, chroma format, no NVDEC in the driver)
      throw GpuDecodingRefused{fmt::format("NVDEC cannot decode this stream ({} {})", info_.codec,
                                           lib().av_get_pix_fmt_name(src))};
    Layout l = layout_of(path_, src);
    path_kind_ = l.path;
    info_.format = l.format;
    info_.format.width = static_cast<unsigned>(width_);
    info_.format.height = static_cast<unsigned>(height_);
    if (info_.format.packed_frame_bytes() > io::kMaxFrameBytes)
      throw Error(fmt::format("{}: a {} frame is over the limit of {} bytes", path_, info_.format.describe(),
                              io::kMaxFrameBytes));
    info_.source_format = lib().av_get_pix_fmt_name(src);
    info_.conversion = l.note;
    if (src_fmt_ == AV_PIX_FMT_CUDA && l.path != Path::copy)
      throw GpuDecodingRefused{
          fmt::format("{} frames are not read from device memory", lib().av_get_pix_fmt_name(src))};
    if (src_fmt_ == AV_PIX_FMT_CUDA && opts.gpu_scale) scale_on_gpu(*opts.gpu_scale);
    const AVPixFmtDescriptor* d = lib().av_pix_fmt_desc_get(src);
    const bool jpeg_format = std::strncmp(d->name, "yuvj", 4) == 0;
    info_.range = frame_->color_range == AVCOL_RANGE_JPEG || jpeg_format ? ColorRange::full
                  : frame_->color_range == AVCOL_RANGE_MPEG                ? ColorRange::limited
                                                                           : ColorRange::unknown;
    if (path_kind_ == Path::convert) {
      // RGB sources become limited-range YUV (BT.601), as FFmpeg converts
      // them by default; YUV sources keep their range.
      const bool rgb = (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) != 0;
      sws_ = make_sws(path_, width_, height_, src, width_, height_,
                      buffer_pix_fmt(info_.format.pix_fmt, info_.format.bitdepth), SWS_BICUBIC,
                      rgb ? ColorRange::unknown : info_.range);
      if (rgb) info_.range = ColorRange::limited;
    }
    if (!l.note.empty()) io::warn(path_ + ": " + l.note);
  }

  void choose_stream(const ReaderOptions& opts) {
    if (opts.stream) {
      const unsigned n = *opts.stream;
      if (n >= fc_->nb_streams)
        throw Error(fmt::format("{}: --stream {}: no such stream ({})", path_, n, stream_list(fc_)));
      const AVCodecParameters* p = fc_->streams[n]->codecpar;
      if (p->codec_type != AVMEDIA_TYPE_VIDEO) {
        const char* type = lib().av_get_media_type_string(p->codec_type);
        throw Error(fmt::format("{}: --stream {} is {}, not video ({})", path_, n, type ? type : "not video",
                                stream_list(fc_)));
      }
      stream_ = static_cast<int>(n);
      return;
    }
    for (unsigned i = 0; i < fc_->nb_streams; ++i) {
      const AVStream* s = fc_->streams[i];
      if (s->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(s->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
        stream_ = static_cast<int>(i);
        return;
      }
    }
    throw Error(fmt::format("{}: no video stream ({})", path_, stream_list(fc_)));
  }

  // The next frame in frame_ (the one decoded at open first); false at the end.
  bool next_frame() {
    if (pending_) {
      pending_ = false;
      return true;
    }
    if (ended_) return false;
    if (!decode()) {
      ended_ = true;
      return false;
    }
    if (frame_->width != width_ || frame_->height != height_ || frame_->format != src_fmt_) {
      const char* now = lib().av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame_->format));
      throw Error(fmt::format("{}: frame {} is {}x{} {}, the first was {}x{} {} (a change of size or format in the "
                              "stream is not supported{})",
                              path_, frames_, frame_->width, frame_->height, now ? now : "?", width_, height_,
                              lib().av_get_pix_fmt_name(src_fmt_),
                              hw_device_ ? "; --hwdec none decodes on the CPU" : ""));
    }
#if EXACTVMAF_AV_HWDEC_CUDA
    // In device memory the format is always "cuda": the stream's own format
    // and the surfaces' must not change either (a Main -> Main10 splice).
    if (src_fmt_ == AV_PIX_FMT_CUDA) {
      const AVPixelFormat surface =
          frame_->hw_frames_ctx ? reinterpret_cast<const AVHWFramesContext*>(frame_->hw_frames_ctx->data)->sw_format
                                : AV_PIX_FMT_NONE;
      if (dec_->sw_pix_fmt != stream_sw_format_ || surface != surface_sw_format_)
        throw Error(fmt::format("{}: frame {} decoded on the GPU is {} in {} surfaces, the first was {} in {} (a "
                                "change of format in the stream is not supported; --hwdec none decodes on the CPU)",
                                path_, frames_, lib().av_get_pix_fmt_name(dec_->sw_pix_fmt),
                                lib().av_get_pix_fmt_name(surface), lib().av_get_pix_fmt_name(stream_sw_format_),
                                lib().av_get_pix_fmt_name(surface_sw_format_)));
    }
#endif
    return true;
  }

  // Decodes one frame into frame_; false at the end of the stream. A damaged
  // stream is an error: concealed frames would be scored as if they were the
  // encode (docs/input.md, "Bad input").
  bool decode() {
    for (;;) {
      int ret = lib().avcodec_receive_frame(dec_, frame_);
      if (ret == 0) {
        check_frame();
        return true;
      }
      if (ret == AVERROR_EOF) {
        check_complete();
        return false;
      }
      if (ret != AVERROR(EAGAIN)) throw decode_error(ret);
      if (flushed_) return false;  // no frame and no more input (cannot happen with a sane decoder)
      clear_logged_error();
      watch_demuxer(fc_);
      ret = lib().av_read_frame(fc_, pkt_);
      const std::string complaint = watched_message();
      watch_demuxer(nullptr);
      if (ret == AVERROR_EOF && !complaint.empty()) {
        // The demuxer hit the end inside an element ("File ended prematurely").
        throw Error(fmt::format("{}: the file ends inside the video after {} frames ({}): a truncated file? "
                                "(--frame_cnt {} scores the frames before the end)",
                                path_, frames_ + pending_, complaint, frames_ + pending_));
      }
      if (ret == AVERROR_EOF) {
        clear_logged_error();
        ret = lib().avcodec_send_packet(dec_, nullptr);
        flushed_ = true;
        if (ret < 0 && ret != AVERROR_EOF) throw decode_error(ret);
        continue;
      }
      if (ret < 0)
        throw Error(fmt::format("{}: read error after {} frames ({})", path_, frames_ + pending_, error_text(ret)));
      if (pkt_->stream_index != stream_) {
        lib().av_packet_unref(pkt_);
        continue;
      }
      ++packets_;
      if (pkt_->flags & AV_PKT_FLAG_CORRUPT) {
        lib().av_packet_unref(pkt_);
        throw Error(fmt::format("{}: packet {} of stream {} is damaged (a truncated or corrupt file?); "
                                "{} frames decoded before it",
                                path_, packets_ - 1, stream_, frames_ + pending_));
      }
      clear_logged_error();
      ret = lib().avcodec_send_packet(dec_, pkt_);
      lib().av_packet_unref(pkt_);
      if (ret < 0 && ret != AVERROR(EAGAIN)) throw decode_error(ret);
    }
  }

  // At the end of the stream: a file cut short ends before the duration its
  // container declares (the frames after the cut are missing, and with
  // B-frames not only at the end). That is bad input, as a truncated y4m is.
  void check_complete() const {
    if (declared_seconds_ <= 0 || !info_.fps_num || first_ts_ == AV_NOPTS_VALUE || last_ts_ == AV_NOPTS_VALUE) return;
    const double frame = static_cast<double>(info_.fps_den) / info_.fps_num;
    const double decoded = static_cast<double>(last_ts_ - first_ts_) * av_q2d(time_base_) + frame;
    if (decoded + 0.5 * frame < declared_seconds_) {
      const std::uint64_t n = frames_ + (pending_ ? 1 : 0);
      throw Error(fmt::format("{}: the video ends after {} frames ({:.3f} s) but its container says {:.3f} s: a "
                              "truncated file? (--frame_cnt {} scores the frames before the end)",
                              path_, n, decoded, declared_seconds_, n));
    }
  }

  Error decode_error(int ret) const {
    return Error(fmt::format("{}: cannot decode frame {} of stream {} ({}): {} (a truncated or corrupt file?)", path_,
                             frames_ + pending_, stream_, info_.codec.empty() ? "video" : info_.codec,
                             error_text(ret)));
  }

  void check_frame() {
    const std::uint64_t n = frames_ + (pending_ ? 1 : 0);
    if (frame_->decode_error_flags || (frame_->flags & AV_FRAME_FLAG_CORRUPT))
      throw Error(fmt::format("{}: frame {} of stream {} is damaged (the decoder reported errors{}): a truncated or "
                              "corrupt file?",
                              path_, n, stream_, frame_->decode_error_flags ? fmt::format(" 0x{:x}", frame_->decode_error_flags) : ""));
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    const bool interlaced = (frame_->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    const bool interlaced = frame_->interlaced_frame != 0;
#endif
    if (interlaced && !warned_interlaced_) {
      warned_interlaced_ = true;
      io::warn(fmt::format("{}: frame {} is interlaced: frames are scored as they are decoded (not deinterlaced)",
                           path_, n));
    }
    check_timing(n);
  }

  // Timestamps: each frame carries its own (FrameBuffer::timestamp, for the
  // pipeline's pairing check); a frame that is not one nominal frame
  // duration after the previous one is reported once.
  void check_timing(std::uint64_t n) {
    const std::int64_t ts = frame_->best_effort_timestamp;
    if (ts == AV_NOPTS_VALUE) {
      timestamp_.reset();
      return;
    }
    timestamp_ = static_cast<double>(ts) * av_q2d(time_base_);
    if (first_ts_ == AV_NOPTS_VALUE) first_ts_ = ts;
    if (last_ts_ != AV_NOPTS_VALUE && info_.fps_num && !warned_vfr_ && time_base_.num > 0) {
      // In ticks of the time base: a nominal frame, and the tolerance of one
      // tick for rates the time base cannot represent (29.97 in 1/1000).
      const double nominal = static_cast<double>(info_.fps_den) * time_base_.den /
                             (static_cast<double>(info_.fps_num) * time_base_.num);
      const double delta = static_cast<double>(ts - last_ts_);
      if (delta - nominal > 1 + nominal / 1000 || nominal - delta > 1 + nominal / 1000) {
        warned_vfr_ = true;
        io::warn(fmt::format("{}: variable frame rate: frame {} is shown {:.3f} ms after frame {}, not {:.3f} ms "
                             "({} fps): frames are paired by index, not by time",
                             path_, n, delta * av_q2d(time_base_) * 1000, n - 1, nominal * av_q2d(time_base_) * 1000,
                             info_.fps_den == 1 ? fmt::format("{}", info_.fps_num)
                                                : fmt::format("{}/{}", info_.fps_num, info_.fps_den)));
      }
    }
    last_ts_ = ts;
  }

  void write(FrameBuffer& dst) {
    dst.set_timestamp(timestamp_);
#if EXACTVMAF_AV_HWDEC_CUDA
    if (src_fmt_ == AV_PIX_FMT_CUDA) {
      if (frame_->crop_left || frame_->crop_top)
        throw Error(fmt::format("{}: frame {} decoded on the GPU is cropped at its top or left edge, which frames in "
                                "device memory do not support (use --hwdec none)",
                                path_, frames_));
      cuda::DecodedSurface surface = surface_;
      for (unsigned p = 0; p < 3; ++p) {
        surface.plane[p] = frame_->data[p];
        surface.pitch[p] = static_cast<std::size_t>(std::max(0, frame_->linesize[p]));
      }
      gpu_stream_->import(surface, dst, luma_only_, path_);
      ++info_.device_frames;
      return;
    }
#endif
    dst.set_on_device(false);
    const VideoFormat& f = info_.format;
    switch (path_kind_) {
      case Path::copy:
        for (unsigned p = 0; p < (luma_only_ ? 1u : 3u); ++p) copy_plane(dst, p, p);
        break;
      case Path::gray: {
        copy_plane(dst, 0, 0);
        if (luma_only_) break;
        const unsigned mid = 1u << (f.bitdepth - 1);
        for (unsigned p = 1; p < 3; ++p) {
          for (unsigned y = 0; y < f.plane_height(p); ++y) {
            std::uint8_t* row = dst.plane(p) + static_cast<std::ptrdiff_t>(y) * dst.stride(p);
            if (f.bitdepth == 8) {
              std::memset(row, static_cast<int>(mid), f.plane_width(p));
            } else {
              const auto v = static_cast<std::uint16_t>(mid);
              for (unsigned x = 0; x < f.plane_width(p); ++x) std::memcpy(row + 2 * x, &v, 2);
            }
          }
        }
        break;
      }
      case Path::convert: {
        std::uint8_t* planes[4] = {dst.plane(0), dst.plane(1), dst.plane(2), nullptr};
        int strides[4] = {static_cast<int>(dst.stride(0)), static_cast<int>(dst.stride(1)),
                          static_cast<int>(dst.stride(2)), 0};
        const int rows = lib().sws_scale(sws_, frame_->data, frame_->linesize, 0, height_, planes, strides);
        if (rows != height_)
          throw Error(fmt::format("{}: libswscale failed on frame {} ({})", path_, frames_, error_text(rows)));
        break;
      }
    }
  }

  void copy_plane(FrameBuffer& dst, unsigned to, unsigned from) {
    const std::size_t bytes = dst.row_bytes(to);
    const unsigned rows = info_.format.plane_height(to);
    const std::uint8_t* src = frame_->data[from];
    const std::ptrdiff_t src_stride = frame_->linesize[from];
    std::uint8_t* out = dst.plane(to);
    const std::ptrdiff_t out_stride = dst.stride(to);
    // Row by row: the buffer's row padding stays zero (FrameBuffer).
    for (unsigned y = 0; y < rows; ++y) std::memcpy(out + y * out_stride, src + y * src_stride, bytes);
  }

  // --hwdec cuda (ReaderOptions::hwdec_gpu): libavcodec's CUDA device on
  // GPU `gpu`'s primary context (the one the cuda backend uses, so device
  // pointers are shared) with our stream, and the format negotiation that
  // picks frames in device memory. One decoder thread: NVDEC decodes.
  void use_gpu_decoder(const AVCodec* codec, const ReaderOptions& opts) {
#if EXACTVMAF_AV_HWDEC_CUDA
    // Only codecs whose decoding is bit-exact by their standard (no IDCT
    // left to the decoder, as in MPEG-2, MPEG-4 Part 2 or MJPEG) and tested
    // against the CPU's decoders (docs/parity.md).
    const AVCodecID id = codec->id;
    if (id != AV_CODEC_ID_H264 && id != AV_CODEC_ID_HEVC && id != AV_CODEC_ID_VP9)
      throw GpuDecodingRefused{fmt::format("NVDEC is used for h264, hevc and vp9 only, not {}", codec->name)};
    if (!has_cuda_config(codec))
      throw GpuDecodingRefused{fmt::format("this FFmpeg has no NVDEC decoder for {}", codec->name)};
    const int gpu = opts.hwdec_gpu;
    gpu_stream_ = std::make_unique<cuda::DecodeStream>(gpu);
    // Our context, given to FFmpeg (its own primary-context setup insists on
    // flags of its choosing and refuses a context the runtime already made).
    hw_device_ = lib().av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
    if (!hw_device_) throw Error(path_ + ": out of memory");
    auto* device = reinterpret_cast<AVHWDeviceContext*>(hw_device_->data);
    auto* cuda_device = static_cast<AVCUDADeviceContext*>(device->hwctx);
    cuda_device->cuda_ctx = static_cast<CUcontext>(gpu_stream_->context());
    cuda_device->stream = static_cast<CUstream>(gpu_stream_->stream());
    clear_logged_error();
    const int ret = lib().av_hwdevice_ctx_init(hw_device_);
    if (ret < 0) throw GpuDecodingRefused{fmt::format("FFmpeg cannot use GPU {} ({})", gpu, error_text(ret))};
    dec_->hw_device_ctx = lib().av_buffer_ref(hw_device_);
    if (!dec_->hw_device_ctx) throw Error(path_ + ": out of memory");
    dec_->get_format = cuda_or_software;
    dec_->thread_count = 1;
#else
    (void)codec;
    (void)opts;
    throw Error(path_ + ": --hwdec cuda: this exactvmaf was built without CUDA");
#endif
  }

  // The first frame came in device memory: how its surfaces map to planes.
  void setup_surface(const ReaderOptions& opts) {
#if EXACTVMAF_AV_HWDEC_CUDA
    if (!frame_->hw_frames_ctx) throw GpuDecodingRefused{"a frame in device memory without its frames context"};
    const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame_->hw_frames_ctx->data);
    const AVPixFmtDescriptor* sw = lib().av_pix_fmt_desc_get(dec_->sw_pix_fmt);
    const AVPixFmtDescriptor* surface = lib().av_pix_fmt_desc_get(frames->sw_format);
    const int depth = sw ? sw->comp[0].depth : 0;
    surface_sw_format_ = frames->sw_format;
    stream_sw_format_ = dec_->sw_pix_fmt;
    // FFmpeg 5.1 gives NV12/P010 surfaces for every chroma format but 4:4:4
    // (4:2:2 too, where a GPU decodes it): the layouts must agree.
    if (!sw || !surface || sw->log2_chroma_w != surface->log2_chroma_w || sw->log2_chroma_h != surface->log2_chroma_h)
      throw GpuDecodingRefused{fmt::format("{} video in {} surfaces", sw ? sw->name : "?",
                                           surface ? surface->name : "?")};
    // FFmpeg 5.1 places the chroma of a mapped surface `height` rows down,
    // where NVIDIA's decoder aligns the luma height to 2: not trusted.
    if (sw->log2_chroma_h == 1 && (frame_->height & 1))
      throw GpuDecodingRefused{fmt::format("odd height {} with 4:2:0 chroma", frame_->height)};
    if (frame_->crop_left || frame_->crop_top)
      throw GpuDecodingRefused{"frames cropped at the top or left edge"};
    switch (frames->sw_format) {
      case AV_PIX_FMT_NV12: surface_.interleaved_chroma = true; break;
      case AV_PIX_FMT_P010:
      case AV_PIX_FMT_P016: surface_.interleaved_chroma = true; surface_.shift = static_cast<unsigned>(16 - depth); break;
      case AV_PIX_FMT_YUV444P: break;
      case AV_PIX_FMT_YUV444P16: surface_.shift = static_cast<unsigned>(16 - depth); break;
      default:
        throw GpuDecodingRefused{fmt::format("{} surfaces are not read", surface->name)};
    }
    const bool wide = frames->sw_format != AV_PIX_FMT_NV12 && frames->sw_format != AV_PIX_FMT_YUV444P;
    if ((depth > 8) != wide || depth < 8 || depth > 16)
      throw GpuDecodingRefused{fmt::format("{}-bit {} video in {} surfaces", depth, sw->name, surface->name)};
    info_.hw_decoder = fmt::format("nvdec on GPU {} ({} surfaces)", opts.hwdec_gpu,
                                   lib().av_get_pix_fmt_name(frames->sw_format));
#else
    (void)opts;
#endif
  }

  // --scale on frames decoded on the GPU: the R scaler there (what
  // scale_reader() does on the host, same bits).
  void scale_on_gpu(const ScaleStep& step) {
#if EXACTVMAF_AV_HWDEC_CUDA
    if (step.convert_to) throw GpuDecodingRefused{"--scale auto converts pixel formats on the host"};
    const VideoFormat src = info_.format;
    const auto [w, h] = scaled_size(src.width, src.height, step);
    if (w == src.width && h == src.height) return;
    try {
      scale_plan_ = std::make_unique<io::RScalePlan>(src, w, h, rscale_algorithm(step.algorithm));
    } catch (const Error& e) {
      throw GpuDecodingRefused{fmt::format("{} (libswscale scales it on the host)", e.what())};
    }
    if (scale_plan_->dst_format().packed_frame_bytes() > io::kMaxFrameBytes)
      throw Error(fmt::format("{}: scaled to {}, a frame is over the limit of {} bytes", path_,
                              scale_plan_->dst_format().describe(), io::kMaxFrameBytes));
    gpu_stream_->set_scale(*scale_plan_);
    info_.format = scale_plan_->dst_format();
    // The report's text is the host's (same scaler, same bits); the summary
    // says where it ran.
    info_.scaling = fmt::format("{}x{} -> {}x{} {} (R scaler)", src.width, src.height, w, h,
                                scale_algorithm_name(step.algorithm));
    info_.hw_decoder.insert(info_.hw_decoder.size() - 1, ", resized there");  // "... (nv12 surfaces, resized there)"
#else
    (void)step;
#endif
  }


  void release() {
    lib().sws_freeContext(sws_);
    sws_ = nullptr;
    lib().avcodec_free_context(&dec_);
    lib().avformat_close_input(&fc_);
    lib().av_frame_free(&frame_);
    lib().av_packet_free(&pkt_);
#if EXACTVMAF_AV_HWDEC_CUDA
    lib().av_buffer_unref(&hw_device_);
    gpu_stream_.reset();  // after the decoder, which queues work on it
#endif
  }

  std::string path_;
  VideoInfo info_;
  AVFormatContext* fc_ = nullptr;
  AVCodecContext* dec_ = nullptr;
  AVPacket* pkt_ = nullptr;
  AVFrame* frame_ = nullptr;
  SwsContext* sws_ = nullptr;
  int stream_ = -1;
  AVRational time_base_{0, 1};
  int width_ = 0, height_ = 0;
  AVPixelFormat src_fmt_ = AV_PIX_FMT_NONE;
  Path path_kind_ = Path::copy;
  std::uint64_t frames_ = 0, packets_ = 0;
  std::int64_t first_ts_ = AV_NOPTS_VALUE, last_ts_ = AV_NOPTS_VALUE;
  double declared_seconds_ = 0;
  std::optional<double> timestamp_;
  bool pending_ = false, ended_ = false, flushed_ = false, luma_only_ = false;
  bool warned_interlaced_ = false, warned_vfr_ = false;
  AVBufferRef* hw_device_ = nullptr;  // --hwdec cuda: libavcodec's CUDA device
#if EXACTVMAF_AV_HWDEC_CUDA
  AVPixelFormat stream_sw_format_ = AV_PIX_FMT_NONE, surface_sw_format_ = AV_PIX_FMT_NONE;
  std::unique_ptr<io::RScalePlan> scale_plan_;
  std::unique_ptr<cuda::DecodeStream> gpu_stream_;
  cuda::DecodedSurface surface_;  // the surfaces' layout (pointers set per frame)
#endif
};

}  // namespace

bool hwdec_cuda_built() { return EXACTVMAF_AV_HWDEC_CUDA != 0; }

std::unique_ptr<VideoReader> open_av(const std::string& path, const ReaderOptions& opts) {
  load_library_for(path);
  try {
    return std::make_unique<AvReader>(path, opts);
  } catch (const GpuDecodingRefused& refused) {
    ReaderOptions cpu = opts;
    cpu.hwdec_gpu = -1;
    auto reader = std::make_unique<AvReader>(path, cpu);
    reader->note_gpu_not_used(refused.why, opts.hwdec_warn);
    return reader;
  }
}

}  // namespace exactvmaf::av
