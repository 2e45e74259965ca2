// FFmpeg's libraries, loaded on first use rather than linked. Linked, they
// and their dependencies (about 130 shared libraries on Debian) cost every
// process about 25 ms of start-up (relocations and constructors), whether or
// not an input needs a decoder; most runs read y4m or raw YUV. The sonames
// are those of the headers this library is compiled with, so the ABI is the
// one the code was built for.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#if EXACTVMAF_AV_HWDEC_CUDA
#include <libavutil/hwcontext.h>
#endif
}

#include <string>

namespace exactvmaf::av {

// Every FFmpeg function this library calls, with the library that exports it.
#define EXACTVMAF_AV_COMMON_FUNCTIONS(X)                                                                    \
  X(avutil, av_frame_alloc)                                                                                 \
  X(avutil, av_frame_free)                                                                                  \
  X(avutil, av_frame_unref)                                                                                 \
  X(avutil, av_get_media_type_string)                                                                       \
  X(avutil, av_get_pix_fmt_name)                                                                            \
  X(avutil, av_log_default_callback)                                                                        \
  X(avutil, av_log_format_line2)                                                                            \
  X(avutil, av_log_set_callback)                                                                            \
  X(avutil, av_log_set_level)                                                                               \
  X(avutil, av_opt_set_double)                                                                              \
  X(avutil, av_opt_set_int)                                                                                 \
  X(avutil, av_pix_fmt_desc_get)                                                                            \
  X(avutil, av_strerror)                                                                                    \
  X(avcodec, av_packet_alloc)                                                                               \
  X(avcodec, av_packet_free)                                                                                \
  X(avcodec, av_packet_unref)                                                                               \
  X(avcodec, avcodec_alloc_context3)                                                                        \
  X(avcodec, avcodec_find_decoder)                                                                          \
  X(avcodec, avcodec_free_context)                                                                          \
  X(avcodec, avcodec_get_name)                                                                              \
  X(avcodec, avcodec_open2)                                                                                 \
  X(avcodec, avcodec_parameters_to_context)                                                                 \
  X(avcodec, avcodec_receive_frame)                                                                         \
  X(avcodec, avcodec_send_packet)                                                                           \
  X(avcodec, avcodec_version)                                                                               \
  X(avformat, av_guess_frame_rate)                                                                          \
  X(avformat, av_probe_input_buffer2)                                                                       \
  X(avformat, av_read_frame)                                                                                \
  X(avformat, avformat_close_input)                                                                         \
  X(avformat, avformat_find_stream_info)                                                                    \
  X(avformat, avformat_open_input)                                                                          \
  X(avformat, avformat_version)                                                                             \
  X(avformat, avio_closep)                                                                                  \
  X(avformat, avio_open)                                                                                    \
  X(swscale, sws_alloc_context)                                                                             \
  X(swscale, sws_freeContext)                                                                               \
  X(swscale, sws_init_context)                                                                              \
  X(swscale, sws_isSupportedInput)                                                                          \
  X(swscale, sws_scale)                                                                                     \
  X(swscale, swscale_version)
#if EXACTVMAF_AV_HWDEC_CUDA
#define EXACTVMAF_AV_FUNCTIONS(X)  \
  EXACTVMAF_AV_COMMON_FUNCTIONS(X) \
  X(avutil, av_buffer_ref)         \
  X(avutil, av_buffer_unref)       \
  X(avutil, av_hwdevice_ctx_alloc) \
  X(avutil, av_hwdevice_ctx_init)  \
  X(avcodec, avcodec_get_hw_config)
#else
#define EXACTVMAF_AV_FUNCTIONS(X) EXACTVMAF_AV_COMMON_FUNCTIONS(X)
#endif

struct Library {
#define EXACTVMAF_AV_MEMBER(library, name) decltype(&::name) name = nullptr;
  EXACTVMAF_AV_FUNCTIONS(EXACTVMAF_AV_MEMBER)
#undef EXACTVMAF_AV_MEMBER
};

// FFmpeg's functions. The first call loads libavutil, libswscale, libavcodec
// and libavformat (thread-safe); it throws Error, with one line naming the
// library or function and the loader's reason, when one cannot be loaded, as
// every later call does.
const Library& lib();

// lib(), its Error prefixed with `path` (the input that needs FFmpeg).
void load_library_for(const std::string& path);

}  // namespace exactvmaf::av
