// Compressed video input through FFmpeg's libraries (libavformat, libavcodec,
// libavutil, libswscale): the exactvmaf_av static library. It is linked into
// the CLI and its tests only, never into libexactvmaf or libvmaf.so.3
// (docs/input.md). Everything here produces ordinary VideoReaders, so the
// pipeline (reader threads, bounded frame pools) is the same as for y4m.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exactvmaf/io.hpp"
#include "io/readers.hpp"
#include "io/rscale.hpp"

namespace exactvmaf::av {

enum class ScaleAlgorithm { bicubic, bilinear, lanczos };
const char* scale_algorithm_name(ScaleAlgorithm a);
io::RScaleAlgorithm rscale_algorithm(ScaleAlgorithm a);

// One input's scaling: first to `convert_to`'s pixel format and bit depth
// at the same size (ab-av1's format=: libswscale set up as FFmpeg's scale
// filter sets it up, SWS_BITEXACT | SWS_ACCURATE_RND), then to width x height
// (-1 as in FFmpeg's scale filter) with the R scaler (io/rscale.hpp: the
// same bytes as libswscale so set up, on the host and on the GPU), or
// libswscale for what the R scaler refuses (16-bit, extreme ratios).
struct ScaleStep {
  std::optional<std::pair<PixelFormat, unsigned>> convert_to;
  int width = -1, height = -1;  // both -1: keep the size
  ScaleAlgorithm algorithm = ScaleAlgorithm::bicubic;
};

struct ReaderOptions {
  // --stream: the stream index as FFmpeg numbers it (ffprobe's "Stream #0:N");
  // nullopt: the first video stream that is not an attached picture.
  std::optional<unsigned> stream;
  // Decoder threads (frame and slice threads); 0: libavcodec's choice (one per core).
  unsigned threads = 0;
  // --hwdec cuda: decode on this GPU with NVDEC into device memory when the
  // codec and stream allow it (else on the CPU, saying why in
  // VideoInfo::hw_decoder, and with a warning when `hwdec_warn`); -1: CPU.
  int hwdec_gpu = -1;
  bool hwdec_warn = false;
  // --scale for this input while frames are decoded on the GPU: a resize
  // (no convert_to) done there with the R scaler, same bits as
  // scale_reader(); VideoInfo::scaling then says so. Frames decoded on the
  // CPU are returned unscaled (VideoInfo::scaling empty): scale_reader()'s job.
  std::optional<ScaleStep> gpu_scale;
};

// Whether this build can decode on the GPU (--hwdec cuda): CUDA and FFmpeg's
// CUDA device type.
bool hwdec_cuda_built();

// Whether open_input() may read `path` through FFmpeg (false for "-", pipes,
// .y4m and .yuv names and y4m content, which never need a decoder).
bool may_decode(const std::string& path);

// The reader for one -r/-d argument:
//  - "-", a name ending in .y4m or .yuv, an input that starts with
//    "YUV4MPEG2 ", or anything that is not a regular file (a pipe, a device,
//    a directory, a missing file): io::open_video_with(), exactly as without
//    FFmpeg;
//  - another regular file that libavformat recognises by its content: the
//    libav reader (raw options, if any, are ignored with a warning);
//  - otherwise raw YUV when raw options are given, else an Error.
// `stream_given`: --stream was given for this input (an Error if it is not
// read through FFmpeg).
std::unique_ptr<VideoReader> open_input(const std::string& path, const io::RawOptions& raw,
                                        const ReaderOptions& opts, bool stream_given = false);

// The libav reader for any file FFmpeg reads, whatever its name. Decodes the
// first frame before returning, so an unreadable or undecodable input fails
// here, with one line naming it.
std::unique_ptr<VideoReader> open_av(const std::string& path, const ReaderOptions& opts);

// --- scaling (docs/input.md, "Scaling") ---------------------------------------


// A parsed --scale: "WxH[:algorithm]" (W or H may be -1: keep the aspect
// ratio, FFmpeg's rule) or "auto" (ab-av1's rule, bicubic).
struct ScaleRequest {
  bool automatic = false;
  int width = 0, height = 0;
  ScaleAlgorithm algorithm = ScaleAlgorithm::bicubic;
};
// Throws Error naming --scale on a malformed value.
ScaleRequest parse_scale(const std::string& text);


// ab-av1's --vmaf-scale auto (src/command/args/vmaf.rs, ffmpeg_lavfi and
// vf_scale): decided by the distorted size and the models. `models` are the
// -m arguments as given (ab-av1's model= values).
struct AutoScale {
  // "vmaf_4k_v0.6.1" when no -m is given and the distorted video is larger
  // than 2560x1440 (ab-av1 then switches to the 4K model); else empty.
  std::string default_model;
  // scale=W:H for both inputs (one of them -1), or nothing.
  std::optional<std::pair<int, int>> size;
};
AutoScale ab_av1_auto_scale(unsigned dist_width, unsigned dist_height, const std::vector<std::string>& models);

// `in`'s frames after `step`. The result's info().scaling says what was done.
std::unique_ptr<VideoReader> scale_reader(std::unique_ptr<VideoReader> in, const ScaleStep& step);

// The size `step` gives an input of w x h (FFmpeg's -1 rule).
std::pair<unsigned, unsigned> scaled_size(unsigned w, unsigned h, const ScaleStep& step);

// "libswscale 6.7.100": the scaler that made a scaled score (its output is
// bit-exact for one libswscale version, not across versions).
std::string scaler_version();
// "libavformat 59.27.100, libavcodec 59.37.100, libswscale 6.7.100".
std::string libav_versions();

}  // namespace exactvmaf::av
