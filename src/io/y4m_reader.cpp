// YUV4MPEG2: a header line, then per frame a "FRAME[ params]\n" line and the
// planes. Chroma layouts that upstream converts (C422, C420paldv, C411, mono,
// 444alpha) go through the same fixed-point filters (chroma_convert.cpp).
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "exactvmaf/error.hpp"
#include "io/chroma_convert.hpp"
#include "io/readers.hpp"
#include "io/warnings.hpp"
#include "io/y4m_header.hpp"

namespace exactvmaf {
namespace io {
namespace {

// Upstream reads at most 79 bytes after "FRAME" and one more byte looking
// for the newline: FRAME parameters are at most 78 bytes.
constexpr std::size_t kMaxFrameParamBytes = 78;

class Y4mReader final : public VideoReader {
 public:
  Y4mReader(InputStream in, const Y4mHeader& header) : in_(std::move(in)), path_(in_.name()), header_(header) {
    info_.format = header.format;
    info_.container = "y4m";
    info_.fps_num = header.fps_num;
    info_.fps_den = header.fps_den;
    info_.y4m_chroma_tag = header.chroma_tag;
    // libvmaf's y4m reader converts these layouts, but 3.2.0's CLI refuses
    // them ("direct read not supported"): say that the planes were made.
    if (header.layout != Y4mLayout::native)
      warn(fmt::format("{}: C{} converted to {} as libvmaf's y4m reader does (chroma {}); libvmaf 3.2.0's CLI "
                       "refuses this input",
                       path_, header.chroma_tag, header.format.describe(),
                       header.layout == Y4mLayout::mono_420    ? "set to 128"
                       : header.layout == Y4mLayout::alpha_444 ? "kept, alpha dropped"
                                                               : "resampled with its filters"));
  }

  const VideoInfo& info() const override { return info_; }
  const std::string& path() const override { return path_; }
  std::uint64_t frames_read() const override { return frames_; }

  bool read_frame(FrameBuffer& dst) override {
    check_buffer_format(path_, dst, info_.format);
    if (!read_frame_header()) return false;
    const VideoFormat& f = info_.format;
    std::uint64_t got = 0;
    // Luma is stored as is in every layout.
    got += read_plane(dst, 0);
    switch (header_.layout) {
      case Y4mLayout::native:
        for (unsigned p = 1; p < f.planes() && got == expected_so_far(p); ++p)
          got += luma_only_ ? in_.skip(std::uint64_t{dst.row_bytes(p)} * f.plane_height(p)) : read_plane(dst, p);
        break;
      case Y4mLayout::alpha_444:
        for (unsigned p = 1; p < 3 && got == expected_so_far(p); ++p) got += read_plane(dst, p);
        if (got == expected_so_far(3)) got += in_.skip(std::uint64_t{f.width} * f.height);
        break;
      case Y4mLayout::mono_420:
        for (unsigned p = 1; p < 3; ++p)
          for (unsigned y = 0; y < f.plane_height(p); ++y) std::memset(dst.plane(p) + y * dst.stride(p), 128, f.plane_width(p));
        break;
      case Y4mLayout::shift_422:
      case Y4mLayout::paldv_420:
      case Y4mLayout::upsample_411:
        if (got == expected_so_far(1)) got += read_and_convert_chroma(dst);
        break;
    }
    if (got < header_.frame_data_bytes)
      throw Error(fmt::format("{}: truncated frame {} (got {} of {} bytes)", path_, frames_, got,
                              header_.frame_data_bytes));
    ++frames_;
    return true;
  }

  // Converted layouts still read and convert chroma (rare inputs).
  void set_luma_only(bool luma_only) override { luma_only_ = luma_only; }

  bool skip_frame() override {
    if (!read_frame_header()) return false;
    const std::uint64_t got = in_.skip(header_.frame_data_bytes);
    if (got < header_.frame_data_bytes)
      throw Error(fmt::format("{}: truncated frame {} (got {} of {} bytes)", path_, frames_, got,
                              header_.frame_data_bytes));
    ++frames_;
    return true;
  }

 private:
  // Bytes a complete frame has before plane p (for the stored layouts whose
  // planes are read one by one).
  std::uint64_t expected_so_far(unsigned p) const {
    const VideoFormat& f = info_.format;
    std::uint64_t n = 0;
    for (unsigned i = 0; i < p; ++i)
      n += std::uint64_t{f.plane_width(i < 3 ? i : 0)} * f.plane_height(i < 3 ? i : 0) * f.bytes_per_sample();
    return n;
  }

  std::uint64_t read_plane(FrameBuffer& dst, unsigned p) {
    const unsigned rows = info_.format.plane_height(p);
    const std::size_t n = read_packed_plane(in_, dst.plane(p), dst.stride(p), dst.row_bytes(p), rows);
    if (info_.format.bitdepth > 8 && n == dst.row_bytes(p) * rows)
      le16_to_host(dst.plane(p), dst.stride(p), dst.row_bytes(p), rows);
    return n;
  }

  // Reads both stored chroma planes into scratch and filters them into dst.
  std::uint64_t read_and_convert_chroma(FrameBuffer& dst) {
    const unsigned w = info_.format.width, h = info_.format.height;
    const unsigned src_w = header_.layout == Y4mLayout::upsample_411 ? (w + 3) / 4 : (w + 1) / 2;
    const unsigned src_h = header_.layout == Y4mLayout::paldv_420 ? (h + 1) / 2 : h;
    const std::size_t plane_bytes = std::size_t{src_w} * src_h;
    // paldv needs a third plane for the horizontal pass's output.
    scratch_.resize(plane_bytes * 3);
    const std::size_t got = in_.read(scratch_.data(), 2 * plane_bytes);
    if (got < 2 * plane_bytes) return got;
    for (unsigned p = 1; p < 3; ++p) {
      const std::uint8_t* src = scratch_.data() + (p - 1) * plane_bytes;
      std::uint8_t* out = dst.plane(p);
      const std::ptrdiff_t out_stride = dst.stride(p);
      switch (header_.layout) {
        case Y4mLayout::shift_422:
          chroma_shift_right_quarter(src, src_w, out, out_stride, src_w, src_h);
          break;
        case Y4mLayout::paldv_420: {
          std::uint8_t* tmp = scratch_.data() + 2 * plane_bytes;
          chroma_shift_right_quarter(src, src_w, tmp, src_w, src_w, src_h);
          if (p == 1) {
            chroma_shift_up_quarter(tmp, src_w, out, out_stride, src_w, src_h);
          } else {
            chroma_shift_down_quarter(tmp, src_w, out, out_stride, src_w, src_h);
          }
          break;
        }
        case Y4mLayout::upsample_411:
          chroma_upsample_411_to_422(src, src_w, src_w, out, out_stride, info_.format.plane_width(p), src_h);
          break;
        default:
          break;
      }
    }
    return got;
  }

  // Consumes "FRAME[ params]\n". False at a clean end of input (no byte
  // left); throws on anything else that is not a frame header.
  bool read_frame_header() {
    char head[5];
    const std::size_t got = in_.read(head, sizeof head);
    if (got == 0) return false;
    if (got < sizeof head || std::memcmp(head, "FRAME", 5) != 0) {
      if (got < sizeof head && std::memcmp(head, "FRAME", got) == 0)
        throw Error(fmt::format("{}: truncated FRAME header of frame {}", path_, frames_));
      throw Error(fmt::format("{}: frame {}: expected a FRAME header, found \"{}\"", path_, frames_,
                              printable(std::string_view(head, got))));
    }
    int c = in_.get();
    if (c == '\n') return true;
    if (c != ' ') {
      if (c < 0) throw Error(fmt::format("{}: truncated FRAME header of frame {}", path_, frames_));
      const char ch = static_cast<char>(c);
      throw Error(fmt::format("{}: frame {}: malformed FRAME header (\"FRAME{}\")", path_, frames_,
                              printable(std::string_view(&ch, 1))));
    }
    for (std::size_t n = 0;; ++n) {
      c = in_.get();
      if (c == '\n') return true;
      if (c < 0) throw Error(fmt::format("{}: truncated FRAME header of frame {}", path_, frames_));
      if (n >= kMaxFrameParamBytes)
        throw Error(fmt::format("{}: frame {}: FRAME header parameters longer than {} bytes", path_, frames_,
                                kMaxFrameParamBytes));
    }
  }

  InputStream in_;
  std::string path_;
  Y4mHeader header_;
  VideoInfo info_;
  std::vector<std::uint8_t> scratch_;
  std::uint64_t frames_ = 0;
  bool luma_only_ = false;
};

}  // namespace

std::unique_ptr<VideoReader> open_y4m_stream(InputStream in) {
  static constexpr std::string_view kMagic = "YUV4MPEG2 ";
  std::string line;
  for (;;) {
    const int c = in.get();
    if (c < 0) {
      if (line.empty()) throw Error(in.name() + ": empty input, expected a y4m header");
      if (line.size() < kMagic.size()) parse_y4m_header(line, in.name());  // says what is wrong
      throw Error(fmt::format("{}: truncated y4m header (no newline after {} bytes)", in.name(), line.size()));
    }
    if (c == '\n') break;
    line += static_cast<char>(c);
    // Not y4m: say so at once instead of reading on for a newline.
    if (line.size() <= kMagic.size() && line.back() != kMagic[line.size() - 1]) parse_y4m_header(line, in.name());
    if (line.size() >= kY4mMaxHeaderLine)
      throw Error(fmt::format("{}: y4m header longer than {} bytes", in.name(), kY4mMaxHeaderLine));
  }
  const Y4mHeader header = parse_y4m_header(line, in.name());
  if (!header.interlace_given) {
    warn(in.name() + ": y4m header has no I tag: interlacing unknown, assuming progressive");
  } else if (header.interlace == '?') {
    warn(in.name() + ": y4m header says I? (interlacing unknown): assuming progressive");
  }
  return std::make_unique<Y4mReader>(std::move(in), header);
}

}  // namespace io

std::unique_ptr<VideoReader> open_y4m(const std::string& path) {
  return io::open_y4m_stream(io::InputStream(io::open_file_source(path), path));
}

}  // namespace exactvmaf
