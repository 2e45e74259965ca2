#include "io/y4m_header.hpp"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <vector>

#include "exactvmaf/error.hpp"

namespace exactvmaf::io {

std::string printable(std::string_view text, std::size_t max_len) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max_len; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > max_len) out += "...";
  return out;
}

namespace {

// A decimal without sign or spaces, at most 9 digits.
std::optional<unsigned> parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

// "num:den"
bool parse_ratio(std::string_view s, unsigned& num, unsigned& den) {
  const auto colon = s.find(':');
  if (colon == std::string_view::npos) return false;
  const auto n = parse_decimal(s.substr(0, colon));
  const auto d = parse_decimal(s.substr(colon + 1));
  if (!n || !d) return false;
  num = *n;
  den = *d;
  return true;
}

struct ChromaEntry {
  const char* tag;
  PixelFormat pix_fmt;  // after conversion
  unsigned bitdepth;
  Y4mLayout layout;
};

// Upstream's table (y4m_input.c), plus the p16 variants it lacks: 16-bit
// raw input is accepted upstream, so y4m gets it too.
constexpr ChromaEntry kChroma[] = {
    {"420", PixelFormat::yuv420, 8, Y4mLayout::native},
    {"420jpeg", PixelFormat::yuv420, 8, Y4mLayout::native},
    {"420mpeg2", PixelFormat::yuv420, 8, Y4mLayout::native},  // upstream does not re-site it
    {"420paldv", PixelFormat::yuv420, 8, Y4mLayout::paldv_420},
    {"420p10", PixelFormat::yuv420, 10, Y4mLayout::native},
    {"420p12", PixelFormat::yuv420, 12, Y4mLayout::native},
    {"420p16", PixelFormat::yuv420, 16, Y4mLayout::native},
    {"422", PixelFormat::yuv422, 8, Y4mLayout::shift_422},
    {"422p10", PixelFormat::yuv422, 10, Y4mLayout::native},
    {"422p12", PixelFormat::yuv422, 12, Y4mLayout::native},
    {"422p16", PixelFormat::yuv422, 16, Y4mLayout::native},
    {"411", PixelFormat::yuv422, 8, Y4mLayout::upsample_411},
    {"444", PixelFormat::yuv444, 8, Y4mLayout::native},
    {"444p10", PixelFormat::yuv444, 10, Y4mLayout::native},
    {"444p12", PixelFormat::yuv444, 12, Y4mLayout::native},
    {"444p16", PixelFormat::yuv444, 16, Y4mLayout::native},
    {"444alpha", PixelFormat::yuv444, 8, Y4mLayout::alpha_444},
    {"mono", PixelFormat::yuv420, 8, Y4mLayout::mono_420},
};

// Bit depth implied by an XYSCSS value such as 420P10 (8 when no P<n>).
std::optional<unsigned> xyscss_bitdepth(std::string_view v) {
  const auto p = v.find_last_of("Pp");
  if (p == std::string_view::npos || p + 1 >= v.size()) return 8u;
  const auto d = parse_decimal(v.substr(p + 1));
  if (!d) return 8u;  // e.g. "420PALDV": the P is part of a siting name
  return *d;
}

}  // namespace

std::uint64_t y4m_frame_data_bytes(Y4mLayout layout, const VideoFormat& out) {
  const std::uint64_t w = out.width, h = out.height;
  const std::uint64_t luma = w * h;
  switch (layout) {
    case Y4mLayout::native:
      return out.packed_frame_bytes();
    case Y4mLayout::shift_422:
      return luma + 2 * ((w + 1) / 2) * h;
    case Y4mLayout::paldv_420:
      return luma + 2 * ((w + 1) / 2) * ((h + 1) / 2);
    case Y4mLayout::upsample_411:
      return luma + 2 * ((w + 3) / 4) * h;
    case Y4mLayout::mono_420:
      return luma;
    case Y4mLayout::alpha_444:
      return 4 * luma;
  }
  return 0;
}

Y4mHeader parse_y4m_header(std::string_view line, const std::string& name) {
  constexpr std::string_view kMagic = "YUV4MPEG2";
  if (line.substr(0, kMagic.size()) != kMagic || (line.size() > kMagic.size() && line[kMagic.size()] != ' ')) {
    throw Error(fmt::format("{}: not a y4m file: the header does not start with \"YUV4MPEG2 \" (found \"{}\")",
                            name, printable(line.substr(0, 16))));
  }
  std::optional<unsigned> width, height;
  bool got_fps = false;
  Y4mHeader h;
  h.chroma_tag = "420";  // upstream's default when C is absent (old mplayer files)
  std::optional<std::string> xyscss;

  std::size_t pos = kMagic.size();
  while (pos < line.size()) {
    if (line[pos] == ' ') {
      ++pos;
      continue;
    }
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view tag = line.substr(pos, end - pos);
    const std::string_view value = tag.substr(1);
    pos = end;
    switch (tag[0]) {
      case 'W':
      case 'H': {
        const auto v = parse_decimal(value);
        const char* what = tag[0] == 'W' ? "width" : "height";
        if (!v) throw Error(fmt::format("{}: bad y4m header: {} tag \"{}\" is not a number", name, what, printable(tag)));
        if (*v == 0) throw Error(fmt::format("{}: bad y4m header: {} is 0", name, what));
        if (*v > kMaxDimension)
          throw Error(fmt::format("{}: bad y4m header: {} {} exceeds the limit of {}", name, what, *v, kMaxDimension));
        (tag[0] == 'W' ? width : height) = *v;
        break;
      }
      case 'F':
        if (!parse_ratio(value, h.fps_num, h.fps_den))
          throw Error(fmt::format("{}: bad y4m header: frame rate tag \"{}\" is not F<num>:<den>", name, printable(tag)));
        got_fps = true;
        break;
      case 'I':
        if (value.size() != 1)
          throw Error(fmt::format("{}: bad y4m header: interlace tag \"{}\"", name, printable(tag)));
        h.interlace = value[0];
        h.interlace_given = true;
        break;
      case 'A': {
        unsigned n = 0, d = 0;
        if (!parse_ratio(value, n, d))
          throw Error(fmt::format("{}: bad y4m header: aspect tag \"{}\" is not A<num>:<den>", name, printable(tag)));
        break;
      }
      case 'C':
        // Upstream keeps at most 15 characters and rejects longer tags.
        if (value.empty() || value.size() > 15)
          throw Error(fmt::format("{}: bad y4m header: chroma tag \"{}\"", name, printable(tag)));
        h.chroma_tag = std::string(value);
        break;
      case 'X':
        if (value.substr(0, 6) == "YSCSS=") xyscss = std::string(value.substr(6));
        break;
      default:
        break;  // unknown tags are ignored, as upstream does
    }
  }
  if (!width || !height || !got_fps) {
    std::string missing;
    for (auto [ok, t] : {std::pair{width.has_value(), "W"}, {height.has_value(), "H"}, {got_fps, "F"}})
      if (!ok) missing += missing.empty() ? t : std::string(", ") + t;
    throw Error(fmt::format("{}: bad y4m header: missing {} tag", name, missing));
  }
  if (h.interlace != 'p' && h.interlace != '?') {
    const char* kind = h.interlace == 't' ? " (top field first)"
                       : h.interlace == 'b' ? " (bottom field first)"
                       : h.interlace == 'm' ? " (mixed)"
                                            : "";
    throw Error(fmt::format("{}: interlaced y4m input (I{}{}) is not supported; deinterlace it first", name,
                            printable(std::string_view(&h.interlace, 1)), kind));
  }
  const ChromaEntry* entry = nullptr;
  for (const auto& e : kChroma)
    if (h.chroma_tag == e.tag) entry = &e;
  if (!entry)
    throw Error(fmt::format("{}: unsupported y4m chroma tag C{} (supported: 420jpeg 420mpeg2 420paldv 420 "
                            "420p10 420p12 420p16 422 422p10 422p12 422p16 444 444p10 444p12 444p16 "
                            "444alpha 411 mono)",
                            name, printable(h.chroma_tag)));
  if (xyscss) {
    const auto depth = xyscss_bitdepth(*xyscss);
    if (depth && *depth != entry->bitdepth)
      throw Error(fmt::format("{}: y4m header contradicts itself: C{} means {}-bit but XYSCSS={} means {}-bit", name,
                              h.chroma_tag, entry->bitdepth, printable(*xyscss), *depth));
  }
  h.format.width = *width;
  h.format.height = *height;
  h.format.pix_fmt = entry->pix_fmt;
  h.format.bitdepth = entry->bitdepth;
  h.layout = entry->layout;
  h.frame_data_bytes = y4m_frame_data_bytes(h.layout, h.format);
  if (h.frame_data_bytes > kMaxFrameBytes || h.format.packed_frame_bytes() > kMaxFrameBytes)
    throw Error(fmt::format("{}: y4m frame of {}x{} C{} is {} bytes, over the limit of {} bytes", name, *width,
                            *height, h.chroma_tag, h.frame_data_bytes, kMaxFrameBytes));
  return h;
}

}  // namespace exactvmaf::io
