// The YUV4MPEG2 stream header, parsed into what the reader needs.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "exactvmaf/format.hpp"

namespace exactvmaf::io {

// How the samples of one frame are laid out in the file and what the reader
// does to them (the conversions of upstream's y4m_input.c).
enum class Y4mLayout : std::uint8_t {
  native,          // planes as stored: 420/420jpeg/420mpeg2, 422pN, 444, 444pN, 420pN
  shift_422,       // C422 (8-bit): chroma re-sited a quarter pel right (mpeg2 -> jpeg)
  paldv_420,       // C420paldv: chroma right, Cb up and Cr down a quarter pel
  upsample_411,    // C411: chroma up-sampled horizontally to 4:2:2
  mono_420,        // Cmono: luma only; 4:2:0 chroma planes set to 128
  alpha_444,       // C444alpha: 4:4:4 plus an alpha plane that is dropped
};

// Longest header line accepted, newline included.
inline constexpr std::size_t kY4mMaxHeaderLine = 1024;
// Largest frame accepted, in bytes as stored, and largest W or H.
inline constexpr std::uint64_t kMaxFrameBytes = std::uint64_t{1} << 31;
inline constexpr unsigned kMaxDimension = 65536;

struct Y4mHeader {
  VideoFormat format;       // what the features see
  Y4mLayout layout = Y4mLayout::native;
  std::string chroma_tag;   // C tag as written, "420" when absent
  unsigned fps_num = 0, fps_den = 0;
  char interlace = '?';     // 'p' or '?' (others are rejected)
  bool interlace_given = false;
  std::uint64_t frame_data_bytes = 0;  // bytes of samples per frame in the file
};

// Parses one header line (without its '\n'). `name` is used in messages.
// Throws Error for anything upstream rejects, and for sizes over the limits
// above. Does not warn; the caller warns about interlace == '?'.
Y4mHeader parse_y4m_header(std::string_view line, const std::string& name);

// Bytes of samples stored per frame for `layout`, given the format the
// features see (`out`, after conversion).
std::uint64_t y4m_frame_data_bytes(Y4mLayout layout, const VideoFormat& out);

// Makes text from a file safe for a one-line message (escapes, truncates).
std::string printable(std::string_view text, std::size_t max_len = 40);

}  // namespace exactvmaf::io
