// Video geometry and pixel storage shared by readers, features and backends.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

enum class PixelFormat : std::uint8_t { yuv400, yuv420, yuv422, yuv444 };

// "420", "422", "444", "400".
const char* pixel_format_name(PixelFormat f);

struct VideoFormat {
  unsigned width = 0;
  unsigned height = 0;
  PixelFormat pix_fmt = PixelFormat::yuv420;
  unsigned bitdepth = 8;  // 8, 10, 12 or 16; > 8 stored as 16-bit words

  unsigned planes() const { return pix_fmt == PixelFormat::yuv400 ? 1u : 3u; }
  // Storage (file and buffer) plane sizes: chroma rounds up, as raw .yuv
  // from ffmpeg and the y4m convention lay frames out.
  unsigned plane_width(unsigned p) const {
    if (p == 0) return width;
    return pix_fmt == PixelFormat::yuv444 ? width : (width + 1) / 2;
  }
  unsigned plane_height(unsigned p) const {
    if (p == 0) return height;
    return pix_fmt == PixelFormat::yuv420 ? (height + 1) / 2 : height;
  }
  // The plane sizes features compute on: libvmaf's pictures, whose chroma
  // is w >> 1 and h >> 1 (rounded down). For odd sizes the last stored
  // chroma column/row is not used, as in upstream's library.
  unsigned picture_width(unsigned p) const {
    if (p == 0 || pix_fmt == PixelFormat::yuv444) return width;
    return width >> 1;
  }
  unsigned picture_height(unsigned p) const {
    if (p == 0 || pix_fmt != PixelFormat::yuv420) return height;
    return height >> 1;
  }
  unsigned bytes_per_sample() const { return bitdepth > 8 ? 2u : 1u; }
  // Bytes of one frame packed without padding (a raw .yuv frame).
  std::size_t packed_frame_bytes() const;
  bool operator==(const VideoFormat&) const = default;
  // e.g. "1920x1080 420 8-bit"
  std::string describe() const;
};

// A frame decoded on a GPU (--hwdec cuda): its samples in device memory,
// planar as in the host planes (low bits, native 16-bit words above 8 bits).
// `host` are the frame's own host planes, which hold its samples only after
// the cuda backend has copied them there for a host step that reads them.
struct DevicePlanes {
  int gpu = -1;
  const std::uint8_t* data[3] = {nullptr, nullptr, nullptr};
  std::size_t pitch[3] = {0, 0, 0};
  std::uint8_t* host[3] = {nullptr, nullptr, nullptr};
};

// A read-only view of one frame's planes. Samples are uint8_t when
// bitdepth == 8, else uint16_t; stride is in bytes.
struct PictureView {
  VideoFormat format;
  const std::uint8_t* data[3] = {nullptr, nullptr, nullptr};
  std::ptrdiff_t stride[3] = {0, 0, 0};
  // Non-null: the samples are in device memory (only the cuda backend reads
  // such a frame; data[] are then its host planes, see DevicePlanes).
  const DevicePlanes* device = nullptr;

  // libvmaf's picture plane sizes (see VideoFormat::picture_width).
  unsigned w(unsigned p) const { return format.picture_width(p); }
  unsigned h(unsigned p) const { return format.picture_height(p); }
  template <class T>
  const T* row(unsigned p, unsigned y) const {
    return reinterpret_cast<const T*>(data[p] + static_cast<std::ptrdiff_t>(y) * stride[p]);
  }
};

}  // namespace exactvmaf

#pragma GCC visibility pop
