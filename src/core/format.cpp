#include "exactvmaf/format.hpp"

#include <fmt/format.h>

namespace exactvmaf {

const char* pixel_format_name(PixelFormat f) {
  switch (f) {
    case PixelFormat::yuv400: return "400";
    case PixelFormat::yuv420: return "420";
    case PixelFormat::yuv422: return "422";
    case PixelFormat::yuv444: return "444";
  }
  return "?";
}

std::size_t VideoFormat::packed_frame_bytes() const {
  std::size_t n = 0;
  for (unsigned p = 0; p < planes(); ++p)
    n += static_cast<std::size_t>(plane_width(p)) * plane_height(p) * bytes_per_sample();
  return n;
}

std::string VideoFormat::describe() const {
  return fmt::format("{}x{} {} {}-bit", width, height, pixel_format_name(pix_fmt), bitdepth);
}

}  // namespace exactvmaf
