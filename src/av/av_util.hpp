// Helpers shared by the libav reader and the scaler: FFmpeg's messages,
// pixel format mapping, libswscale contexts set up as FFmpeg's scale filter
// sets them up.
#pragma once
#include <string>

extern "C" {
#include <libavutil/pixfmt.h>
}

#include "exactvmaf/format.hpp"
#include "exactvmaf/io.hpp"

struct SwsContext;

namespace exactvmaf::av {

// FFmpeg's text for an AVERROR code, followed by the last error FFmpeg
// logged, when there is one ("Invalid data found when processing input:
// moov atom not found").
std::string error_text(int averror);
// Routes FFmpeg's log to the library (nothing is printed; errors are kept for
// error_text). EXACTVMAF_FFMPEG_LOG=<level> (quiet, error, warning, info,
// verbose, debug) prints FFmpeg's own messages at that level instead.
void install_log_handler();
// Forgets the last logged error (before an operation whose message we want).
void clear_logged_error();
// Keeps the last warning or error that `context` (an AVFormatContext) logs on
// this thread from now on; watched_message() returns it ("" if none).
void watch_demuxer(const void* context);
std::string watched_message();

// The libav pixel format of our frame buffers (native-endian 16-bit words above 8 bits).
AVPixelFormat buffer_pix_fmt(PixelFormat f, unsigned bitdepth);

// A libswscale context from src to dst, configured like FFmpeg's scale filter
// (libavfilter/vf_scale.c config_props in FFmpeg 5.1): the algorithm's flag
// plus SWS_BITEXACT | SWS_ACCURATE_RND, default filter parameters, MPEG-2
// vertical chroma position (128) for yuv420p on either side, one thread.
// Both sides keep `range`: scaling never converts the sample range.
// `algorithm_flag`: SWS_BICUBIC, SWS_BILINEAR or SWS_LANCZOS. Throws Error
// naming `path` when libswscale refuses.
SwsContext* make_sws(const std::string& path, int src_w, int src_h, AVPixelFormat src, int dst_w, int dst_h,
                     AVPixelFormat dst, int algorithm_flag, ColorRange range);

// The sws_flags text of make_sws, e.g. "bicubic+bitexact+accurate_rnd".
std::string sws_flags_text(int algorithm_flag);

}  // namespace exactvmaf::av
