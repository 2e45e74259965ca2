// Private entry points of the readers: construction from an InputStream
// (memory for tests and fuzzing, fd for files and pipes) and open_video with
// raw options that remember which of -w/-h/-p/-b were given.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "exactvmaf/io.hpp"
#include "io/stream.hpp"

namespace exactvmaf::io {

std::unique_ptr<VideoReader> open_raw_stream(InputStream in, const RawParams& p);
// Reads and checks the header; throws Error naming in.name() on failure.
std::unique_ptr<VideoReader> open_y4m_stream(InputStream in);

// Raw options as given on a command line; nullopt = option not given.
struct RawOptions {
  std::optional<unsigned> width, height;
  std::optional<PixelFormat> pix_fmt;
  std::optional<unsigned> bitdepth;
  bool any() const { return width || height || pix_fmt || bitdepth; }
};

// open_video's decision, with exact knowledge of the missing options:
//  - the input starts with "YUV4MPEG2 " -> y4m (raw options, if any, are
//    ignored with a warning);
//  - else any raw option given -> raw (all four needed, else Error naming
//    the missing ones and the path);
//  - else "-" or a name ending in .y4m -> y4m (fails on the header);
//  - else Error: not y4m and no raw options.
std::unique_ptr<VideoReader> open_video_with(const std::string& path, const RawOptions& raw);

// Reads one plane of packed rows (row_bytes each) from `in` into a plane
// with `stride` >= row_bytes: one read of the whole plane, then rows are
// spread out in place when stride > row_bytes (padding bytes set to 0).
// Returns the bytes read (short only at the end of input).
std::size_t read_packed_plane(InputStream& in, std::uint8_t* plane, std::ptrdiff_t stride, std::size_t row_bytes,
                              unsigned rows);
// The same from a positional stream at `offset` (thread-safe).
std::size_t read_packed_plane_at(const InputStream& in, std::uint64_t offset, std::uint8_t* plane,
                                 std::ptrdiff_t stride, std::size_t row_bytes, unsigned rows);

// Throws Error naming `path` when `dst` was not made for `fmt`.
void check_buffer_format(const std::string& path, const FrameBuffer& dst, const VideoFormat& fmt);

// Converts little-endian 16-bit samples to the host order (no-op on
// little-endian hosts).
void le16_to_host(std::uint8_t* plane, std::ptrdiff_t stride, std::size_t row_bytes, unsigned rows);

}  // namespace exactvmaf::io
