// Chooses between y4m and raw. Upstream's CLI (cli_parse.c) reads raw when
// any of -w/-h/-p/-b is given (then all four are required) and y4m
// otherwise; we additionally let the stream's own "YUV4MPEG2 " magic win.
#include <fmt/format.h>

#include <cstring>

#include "exactvmaf/error.hpp"
#include "io/readers.hpp"
#include "io/warnings.hpp"

namespace exactvmaf {
namespace io {
namespace {

bool ends_with_y4m(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext == ".y4m";
}

}  // namespace

std::unique_ptr<VideoReader> open_video_with(const std::string& path, const RawOptions& raw) {
  InputStream in(open_file_source(path), path);
  std::uint8_t magic[10];
  const bool has_magic = in.peek(magic, sizeof magic) == sizeof magic && std::memcmp(magic, "YUV4MPEG2 ", 10) == 0;
  if (has_magic) {
    if (raw.any())
      warn(path + ": input starts with a YUV4MPEG2 header: reading it as y4m and ignoring -w/-h/-p/-b");
    return open_y4m_stream(std::move(in));
  }
  if (raw.any()) {
    std::string missing;
    for (auto [given, opt] : {std::pair{raw.width.has_value(), "-w"},
                              {raw.height.has_value(), "-h"},
                              {raw.pix_fmt.has_value(), "-p"},
                              {raw.bitdepth.has_value(), "-b"}})
      if (!given) missing += missing.empty() ? opt : std::string(", ") + opt;
    if (!missing.empty())
      throw Error(fmt::format("{}: raw YUV input needs -w, -h, -p and -b; missing {}", path, missing));
    RawParams p;
    p.width = *raw.width;
    p.height = *raw.height;
    p.pix_fmt = *raw.pix_fmt;
    p.bitdepth = *raw.bitdepth;
    return open_raw_stream(std::move(in), p);
  }
  if (path == "-" || ends_with_y4m(path)) return open_y4m_stream(std::move(in));
  throw Error(fmt::format("{}: not a y4m file (no YUV4MPEG2 header); raw YUV input needs -w, -h, -p and -b", path));
}

}  // namespace io

std::unique_ptr<VideoReader> open_video(const std::string& path, const std::optional<RawParams>& raw) {
  io::RawOptions opts;
  if (raw) {
    // RawParams cannot say "not given"; 0 stands for a missing -w/-h/-b.
    if (raw->width) opts.width = raw->width;
    if (raw->height) opts.height = raw->height;
    opts.pix_fmt = raw->pix_fmt;
    if (raw->bitdepth) opts.bitdepth = raw->bitdepth;
  }
  return io::open_video_with(path, opts);
}

}  // namespace exactvmaf

namespace exactvmaf {
const char* color_range_name(ColorRange r) {
  switch (r) {
    case ColorRange::limited: return "limited";
    case ColorRange::full: return "full";
    case ColorRange::unknown: break;
  }
  return "unknown";
}

void VideoReader::read_frame_at(std::uint64_t, FrameBuffer&) const {
  throw Error(path() + ": this input cannot be read by frame index");
}
}  // namespace exactvmaf
