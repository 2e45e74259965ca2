// Video input: raw planar YUV and YUV4MPEG2 (y4m), from files, named pipes
// or standard input ("-"). Compressed video (FFmpeg's libraries) is read by
// the CLI's exactvmaf_av library (src/av/, docs/input.md) through the same
// VideoReader interface; libexactvmaf itself never links libav*.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "exactvmaf/format.hpp"
#include "exactvmaf/frame.hpp"

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

// The sample range a decoder reports (VMAF scores the samples as they are:
// the range is reported, never converted).
enum class ColorRange : std::uint8_t { unknown, limited, full };
// "unknown", "limited", "full".
const char* color_range_name(ColorRange r);

struct VideoInfo {
  VideoFormat format;           // what the features see (after any conversion)
  std::string container;        // "yuv", "y4m", or FFmpeg's demuxer name ("matroska,webm", "mov,mp4,...")
  // Frame rate (y4m header, or the container's), for reporting and the
  // alignment checks only (0 when unknown).
  unsigned fps_num = 0, fps_den = 0;
  std::string y4m_chroma_tag;   // e.g. "420jpeg", "420mpeg2", "mono"
  // Frames in the input when it can be known up front (raw regular files).
  std::optional<std::uint64_t> frame_count;
  // Compressed input only (empty/0 otherwise): the codec, the decoder's pixel
  // format before any conversion, how frames reach `format` (empty: copied
  // as decoded), the stream's time base, the frame count the container
  // declares or its duration implies (progress and messages, never pairing).
  std::string codec;
  std::string source_format;
  std::string conversion;
  ColorRange range = ColorRange::unknown;
  unsigned time_base_num = 0, time_base_den = 0;
  std::optional<std::uint64_t> frame_count_estimate;
  // Set by a scaling reader: e.g. "1280x720 -> 1920x1080 bicubic".
  std::string scaling;
  // Compressed input decoded on a GPU (--hwdec cuda): e.g. "nvdec on GPU 0",
  // and the frames handed to the pipeline in device memory so far; or why
  // the GPU's decoder was not used ("hwdec: ...", frames decoded on the CPU).
  std::string hw_decoder;
  std::uint64_t device_frames = 0;
  // Whether the frames come decoded on a GPU, in device memory.
  bool decoded_on_gpu() const { return hw_decoder.rfind("nvdec", 0) == 0; }
};

class VideoReader {
 public:
  virtual ~VideoReader() = default;
  virtual const VideoInfo& info() const = 0;
  // The path as given by the user ("-" for stdin), used in messages.
  virtual const std::string& path() const = 0;
  // Reads the next frame into `dst` (whose format equals info().format).
  // Returns false at a clean end of input. Throws Error naming the path for a
  // truncated frame, a malformed FRAME header or an I/O error.
  virtual bool read_frame(FrameBuffer& dst) = 0;
  // Skips one frame; false at a clean end of input.
  virtual bool skip_frame() = 0;
  // Frames returned so far (read or skipped).
  virtual std::uint64_t frames_read() const = 0;
  // Raw regular files: frame `index` (counted from where the reader was
  // opened, skipped frames included) can be read from several threads at
  // once, independently of read_frame(). Throws Error like read_frame().
  virtual bool random_access() const { return false; }
  virtual void read_frame_at(std::uint64_t index, FrameBuffer& dst) const;
  // When every feature of a run reads luma only, the pipeline asks readers to
  // leave the chroma planes of the frames they read unwritten (skipped in the
  // input; a third fewer bytes to read at 4:2:0). Default: read everything.
  virtual void set_luma_only(bool luma_only) { (void)luma_only; }
};

struct RawParams {
  unsigned width = 0, height = 0;
  PixelFormat pix_fmt = PixelFormat::yuv420;
  unsigned bitdepth = 8;
};

// Opens a raw planar YUV file (10-16 bit as little-endian 16-bit words).
std::unique_ptr<VideoReader> open_raw(const std::string& path, const RawParams& p);
// Opens a y4m file; "-" reads standard input.
std::unique_ptr<VideoReader> open_y4m(const std::string& path);
// y4m when the input starts with "YUV4MPEG2 " (raw parameters are then
// ignored with a warning); otherwise raw when `raw` is given (all of width,
// height, bit depth non-zero, else Error naming what is missing); otherwise
// "-" and *.y4m are read as y4m (and fail on a bad header); anything else is
// an Error asking for -w/-h/-p/-b.
std::unique_ptr<VideoReader> open_video(const std::string& path, const std::optional<RawParams>& raw);

// Readers report conditions they carry on from (unknown interlacing, raw
// options given for a y4m input, converted chroma layouts) through one
// process-wide handler: one line naming the input, no newline. The default
// writes "warning: <line>" to stderr. Returns the previous handler.
using InputWarningHandler = std::function<void(const std::string&)>;
InputWarningHandler set_input_warning_handler(InputWarningHandler handler);

}  // namespace exactvmaf

#pragma GCC visibility pop
