#include "av/av_util.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "av/av_input.hpp"
#include "av/av_library.hpp"
#include "exactvmaf/error.hpp"

namespace exactvmaf::av {
namespace {

std::mutex g_log_mutex;
std::string g_last_error;  // the last message FFmpeg logged at AV_LOG_ERROR or worse
int g_print_level = AV_LOG_QUIET - 1;  // below quiet: print nothing
// The demuxer this thread watches (watch_demuxer) and the last warning or
// error it logged: FFmpeg logs on the calling thread.
thread_local const void* t_watched = nullptr;
thread_local std::string t_watched_message;

void log_callback(void* avcl, int level, const char* format, va_list args) {
  if (g_print_level >= AV_LOG_QUIET) {
    va_list copy;
    va_copy(copy, args);
    if (level <= g_print_level) lib().av_log_default_callback(avcl, level, format, copy);
    va_end(copy);
  }
  const bool watched = avcl != nullptr && avcl == t_watched && level <= AV_LOG_WARNING;
  if (level > AV_LOG_ERROR && !watched) return;
  char line[512];
  int print_prefix = 1;
  lib().av_log_format_line2(avcl, level, format, args, line, sizeof line, &print_prefix);
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '.')) text.pop_back();
  // "[h264 @ 0x55d0c0a4c2c0] " is noise in a one-line message.
  if (text.size() > 1 && text[0] == '[') {
    const auto close = text.find("] ");
    if (close != std::string::npos) text = text.substr(close + 2);
  }
  if (text.empty()) return;
  if (watched) t_watched_message = text;
  if (level > AV_LOG_ERROR) return;
  std::lock_guard lock(g_log_mutex);
  g_last_error = text;
}

}  // namespace

void install_log_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* env = std::getenv("EXACTVMAF_FFMPEG_LOG")) {
      static const std::pair<const char*, int> kLevels[] = {{"quiet", AV_LOG_QUIET},     {"error", AV_LOG_ERROR},
                                                            {"warning", AV_LOG_WARNING}, {"info", AV_LOG_INFO},
                                                            {"verbose", AV_LOG_VERBOSE}, {"debug", AV_LOG_DEBUG}};
      for (const auto& [name, level] : kLevels)
        if (std::strcmp(env, name) == 0) g_print_level = level;
    }
    lib().av_log_set_level(AV_LOG_WARNING > g_print_level ? AV_LOG_WARNING : g_print_level);
    lib().av_log_set_callback(log_callback);
  });
}

void watch_demuxer(const void* context) {
  t_watched = context;
  t_watched_message.clear();
}

std::string watched_message() { return t_watched_message; }

void clear_logged_error() {
  std::lock_guard lock(g_log_mutex);
  g_last_error.clear();
}

std::string error_text(int averror) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
  lib().av_strerror(averror, buf, sizeof buf);
  std::string text = buf;
  std::lock_guard lock(g_log_mutex);
  if (!g_last_error.empty() && g_last_error != text) text += ": " + g_last_error;
  return text;
}

AVPixelFormat buffer_pix_fmt(PixelFormat f, unsigned bitdepth) {
  // Native-endian formats: our buffers hold host-order 16-bit words.
  switch (f) {
    case PixelFormat::yuv420:
      return bitdepth == 8 ? AV_PIX_FMT_YUV420P : bitdepth == 10 ? AV_PIX_FMT_YUV420P10
                           : bitdepth == 12 ? AV_PIX_FMT_YUV420P12 : AV_PIX_FMT_YUV420P16;
    case PixelFormat::yuv422:
      return bitdepth == 8 ? AV_PIX_FMT_YUV422P : bitdepth == 10 ? AV_PIX_FMT_YUV422P10
                           : bitdepth == 12 ? AV_PIX_FMT_YUV422P12 : AV_PIX_FMT_YUV422P16;
    case PixelFormat::yuv444:
      return bitdepth == 8 ? AV_PIX_FMT_YUV444P : bitdepth == 10 ? AV_PIX_FMT_YUV444P10
                           : bitdepth == 12 ? AV_PIX_FMT_YUV444P12 : AV_PIX_FMT_YUV444P16;
    case PixelFormat::yuv400:
      return bitdepth == 8 ? AV_PIX_FMT_GRAY8 : bitdepth == 10 ? AV_PIX_FMT_GRAY10
                           : bitdepth == 12 ? AV_PIX_FMT_GRAY12 : AV_PIX_FMT_GRAY16;
  }
  return AV_PIX_FMT_NONE;
}

std::string sws_flags_text(int algorithm_flag) {
  const char* name = algorithm_flag == SWS_BILINEAR ? "bilinear" : algorithm_flag == SWS_LANCZOS ? "lanczos" : "bicubic";
  return fmt::format("{}+bitexact+accurate_rnd", name);
}

SwsContext* make_sws(const std::string& path, int src_w, int src_h, AVPixelFormat src, int dst_w, int dst_h,
                     AVPixelFormat dst, int algorithm_flag, ColorRange range) {
  SwsContext* s = lib().sws_alloc_context();
  if (!s) throw Error(path + ": out of memory for a libswscale context");
  // The options FFmpeg 5.1's scale filter sets (config_props), in its order.
  lib().av_opt_set_int(s, "srcw", src_w, 0);
  lib().av_opt_set_int(s, "srch", src_h, 0);
  lib().av_opt_set_int(s, "src_format", src, 0);
  lib().av_opt_set_int(s, "dstw", dst_w, 0);
  lib().av_opt_set_int(s, "dsth", dst_h, 0);
  lib().av_opt_set_int(s, "dst_format", dst, 0);
  lib().av_opt_set_int(s, "sws_flags", algorithm_flag | SWS_BITEXACT | SWS_ACCURATE_RND, 0);
  lib().av_opt_set_double(s, "param0", SWS_PARAM_DEFAULT, 0);
  lib().av_opt_set_double(s, "param1", SWS_PARAM_DEFAULT, 0);
  lib().av_opt_set_int(s, "threads", 1, 0);
  if (range != ColorRange::unknown) {
    // The scale filter passes the frame's range as src_range; we keep it on
    // the output too (the filter would convert full range to limited).
    lib().av_opt_set_int(s, "src_range", range == ColorRange::full, 0);
    lib().av_opt_set_int(s, "dst_range", range == ColorRange::full, 0);
  }
  // "Override YUV420P default settings to have the correct (MPEG-2) chroma positions."
  lib().av_opt_set_int(s, "src_h_chr_pos", -513, 0);
  lib().av_opt_set_int(s, "src_v_chr_pos", src == AV_PIX_FMT_YUV420P ? 128 : -513, 0);
  lib().av_opt_set_int(s, "dst_h_chr_pos", -513, 0);
  lib().av_opt_set_int(s, "dst_v_chr_pos", dst == AV_PIX_FMT_YUV420P ? 128 : -513, 0);
  clear_logged_error();
  const int ret = lib().sws_init_context(s, nullptr, nullptr);
  if (ret < 0) {
    lib().sws_freeContext(s);
    throw Error(fmt::format("{}: libswscale cannot convert {} {}x{} to {} {}x{} ({})", path,
                            lib().av_get_pix_fmt_name(src), src_w, src_h, lib().av_get_pix_fmt_name(dst), dst_w, dst_h,
                            error_text(ret)));
  }
  return s;
}

std::string scaler_version() {
  const unsigned v = lib().swscale_version();
  return fmt::format("libswscale {}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

std::string libav_versions() {
  const auto text = [](const char* name, unsigned v) {
    return fmt::format("{} {}.{}.{}", name, v >> 16, (v >> 8) & 0xff, v & 0xff);
  };
  return text("libavformat", lib().avformat_version()) + ", " + text("libavcodec", lib().avcodec_version()) + ", " +
         text("libswscale", lib().swscale_version());
}

}  // namespace exactvmaf::av
