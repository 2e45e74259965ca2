// Raw planar YUV: Y, then Cb, then Cr, each packed row after row; samples
// over 8 bits as little-endian 16-bit words.
#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "io/readers.hpp"
#include "io/warnings.hpp"
#include "io/y4m_header.hpp"

namespace exactvmaf {
namespace io {
namespace {

class RawReader final : public VideoReader {
 public:
  RawReader(InputStream in, const VideoFormat& fmt) : in_(std::move(in)), path_(in_.name()) {
    info_.format = fmt;
    info_.container = "yuv";
    frame_bytes_ = fmt.packed_frame_bytes();
    if (in_.positional()) base_ = in_.tell();
    if (const auto size = in_.remaining()) {
      info_.frame_count = *size / frame_bytes_;
      const std::uint64_t tail = *size % frame_bytes_;
      // Upstream fails at a partial last frame ("Error reading YUV frame
      // data.") and writes no output; we refuse the file before any work.
      if (tail != 0) throw partial_frame(*info_.frame_count, tail);
    }
  }

  const VideoInfo& info() const override { return info_; }
  const std::string& path() const override { return path_; }
  std::uint64_t frames_read() const override { return frames_; }

  bool read_frame(FrameBuffer& dst) override {
    check_buffer_format(path_, dst, info_.format);
    if (ended_) return false;
    std::uint64_t got = 0;
    for (unsigned p = 0; p < info_.format.planes(); ++p) {
      const unsigned rows = info_.format.plane_height(p);
      const std::size_t n = p > 0 && luma_only_ ? in_.skip(dst.row_bytes(p) * rows)
                                                : read_packed_plane(in_, dst.plane(p), dst.stride(p), dst.row_bytes(p), rows);
      got += n;
      if (n < dst.row_bytes(p) * rows) return end_of_input(got);
      if (p > 0 && luma_only_) continue;
      if (info_.format.bitdepth > 8) le16_to_host(dst.plane(p), dst.stride(p), dst.row_bytes(p), rows);
    }
    ++frames_;
    return true;
  }

  bool random_access() const override { return in_.positional() && info_.frame_count.has_value(); }

  void read_frame_at(std::uint64_t index, FrameBuffer& dst) const override {
    if (!random_access()) VideoReader::read_frame_at(index, dst);
    check_buffer_format(path_, dst, info_.format);
    std::uint64_t offset = base_ + index * frame_bytes_;
    for (unsigned p = 0; p < (luma_only_ ? 1u : info_.format.planes()); ++p) {
      const unsigned rows = info_.format.plane_height(p);
      const std::size_t n = read_packed_plane_at(in_, offset, dst.plane(p), dst.stride(p), dst.row_bytes(p), rows);
      if (n < dst.row_bytes(p) * rows)
        throw Error(fmt::format("{}: frame {} is truncated (the file shrank while it was read)", path_, index));
      if (info_.format.bitdepth > 8) le16_to_host(dst.plane(p), dst.stride(p), dst.row_bytes(p), rows);
      offset += dst.row_bytes(p) * rows;
    }
  }

  void set_luma_only(bool luma_only) override { luma_only_ = luma_only; }

  bool skip_frame() override {
    if (ended_) return false;
    const std::uint64_t got = in_.skip(frame_bytes_);
    if (got < frame_bytes_) return end_of_input(got);
    ++frames_;
    return true;
  }

 private:
  bool end_of_input(std::uint64_t got) {
    ended_ = true;
    if (got > 0) throw partial_frame(frames_, got);  // a pipe: known only at its end
    return false;
  }
  Error partial_frame(std::uint64_t whole_frames, std::uint64_t tail) const {
    return Error(fmt::format("{}: size is not a whole number of frames: {} whole frames of {} bytes ({}) "
                             "and {} bytes more (wrong -w/-h/-p/-b, or a truncated file?)",
                             path_, whole_frames, frame_bytes_, info_.format.describe(), tail));
  }

  InputStream in_;
  std::string path_;
  VideoInfo info_;
  std::uint64_t frame_bytes_ = 0;
  std::uint64_t base_ = 0;  // file offset of frame 0 (positional inputs)
  std::uint64_t frames_ = 0;
  bool ended_ = false;
  bool luma_only_ = false;
};

void check_raw_params(const std::string& path, const RawParams& p) {
  if (p.width == 0 || p.height == 0 || p.width > kMaxDimension || p.height > kMaxDimension)
    throw Error(fmt::format("{}: raw size {}x{} is out of range (1 to {})", path, p.width, p.height, kMaxDimension));
  if (p.pix_fmt == PixelFormat::yuv400)
    throw Error(fmt::format("{}: raw pixel format 400 is not supported (use 420, 422 or 444)", path));
  if (p.bitdepth != 8 && p.bitdepth != 10 && p.bitdepth != 12 && p.bitdepth != 16)
    throw Error(fmt::format("{}: raw bit depth {} is not supported (use 8, 10, 12 or 16)", path, p.bitdepth));
}

}  // namespace

std::unique_ptr<VideoReader> open_raw_stream(InputStream in, const RawParams& p) {
  check_raw_params(in.name(), p);
  VideoFormat fmt;
  fmt.width = p.width;
  fmt.height = p.height;
  fmt.pix_fmt = p.pix_fmt;
  fmt.bitdepth = p.bitdepth;
  if (fmt.packed_frame_bytes() > kMaxFrameBytes)
    throw Error(fmt::format("{}: a {} frame is {} bytes, over the limit of {} bytes", in.name(), fmt.describe(),
                            fmt.packed_frame_bytes(), kMaxFrameBytes));
  return std::make_unique<RawReader>(std::move(in), fmt);
}

}  // namespace io

std::unique_ptr<VideoReader> open_raw(const std::string& path, const RawParams& p) {
  io::check_raw_params(path, p);  // before touching the file
  return io::open_raw_stream(io::InputStream(io::open_file_source(path), path), p);
}

}  // namespace exactvmaf
