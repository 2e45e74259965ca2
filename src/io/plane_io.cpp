#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"

#include "io/readers.hpp"

namespace exactvmaf::io {

namespace {
// Spreads `rows` packed rows at the start of the plane to their strided
// places and zeroes the padding. Returns `got`.
std::size_t spread_rows(std::uint8_t* plane, std::ptrdiff_t stride, std::size_t row_bytes, unsigned rows,
                        std::size_t got);
}  // namespace

std::size_t read_packed_plane(InputStream& in, std::uint8_t* plane, std::ptrdiff_t stride, std::size_t row_bytes,
                              unsigned rows) {
  return spread_rows(plane, stride, row_bytes, rows, in.read(plane, row_bytes * rows));
}

std::size_t read_packed_plane_at(const InputStream& in, std::uint64_t offset, std::uint8_t* plane,
                                 std::ptrdiff_t stride, std::size_t row_bytes, unsigned rows) {
  return spread_rows(plane, stride, row_bytes, rows, in.read_at(plane, row_bytes * rows, offset));
}

namespace {
std::size_t spread_rows(std::uint8_t* plane, std::ptrdiff_t stride, std::size_t row_bytes, unsigned rows,
                        std::size_t got) {
  const std::size_t packed = row_bytes * rows;
  const auto pitch = static_cast<std::size_t>(stride);
  if (got < packed || pitch == row_bytes) return got;
  // The plane holds rows * stride bytes, so the packed rows fit at its start;
  // moving the last row first never overwrites a row not yet moved.
  for (unsigned y = rows; y-- > 0;) {
    std::uint8_t* dst = plane + y * pitch;
    if (y > 0) std::memmove(dst, plane + y * row_bytes, row_bytes);
    std::memset(dst + row_bytes, 0, pitch - row_bytes);
  }
  return got;
}
}  // namespace

void check_buffer_format(const std::string& path, const FrameBuffer& dst, const VideoFormat& fmt) {
  if (dst.format() != fmt)
    throw Error(fmt::format("{}: frame buffer is {}, the input is {}", path, dst.format().describe(), fmt.describe()));
}

void le16_to_host(std::uint8_t* plane, std::ptrdiff_t stride, std::size_t row_bytes, unsigned rows) {
  if constexpr (std::endian::native == std::endian::little) {
    (void)plane, (void)stride, (void)row_bytes, (void)rows;
  } else {
    for (unsigned y = 0; y < rows; ++y) {
      std::uint8_t* r = plane + static_cast<std::ptrdiff_t>(y) * stride;
      for (std::size_t i = 0; i + 1 < row_bytes; i += 2) std::swap(r[i], r[i + 1]);
    }
  }
}

}  // namespace exactvmaf::io
