// y4m stream header parsing: accepted tags, formats reported, and every
// rejection with a one-line message naming the input.
#include <gtest/gtest.h>

#include <string>

#include "exactvmaf/error.hpp"
#include "io/y4m_header.hpp"

namespace exactvmaf::io {
namespace {

std::string error_of(const std::string& line) {
  try {
    parse_y4m_header(line, "in.y4m");
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("in.y4m: ", 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "no error for: " << line;
  return "";
}

TEST(Y4mHeader, MinimalHeaderDefaultsTo420) {
  const Y4mHeader h = parse_y4m_header("YUV4MPEG2 W8 H4 F25:1", "in.y4m");
  EXPECT_EQ(h.format.width, 8u);
  EXPECT_EQ(h.format.height, 4u);
  EXPECT_EQ(h.format.pix_fmt, PixelFormat::yuv420);
  EXPECT_EQ(h.format.bitdepth, 8u);
  EXPECT_EQ(h.chroma_tag, "420");
  EXPECT_EQ(h.fps_num, 25u);
  EXPECT_EQ(h.fps_den, 1u);
  EXPECT_FALSE(h.interlace_given);
  EXPECT_EQ(h.layout, Y4mLayout::native);
  EXPECT_EQ(h.frame_data_bytes, 8u * 4 + 2 * 4 * 2);
}

TEST(Y4mHeader, FfmpegStyleHeader) {
  const Y4mHeader h =
      parse_y4m_header("YUV4MPEG2 W1920 H1080 F30000:1001 Ip A1:1 C420p10 XYSCSS=420P10 XCOLORRANGE=LIMITED", "x");
  EXPECT_EQ(h.format, (VideoFormat{1920, 1080, PixelFormat::yuv420, 10}));
  EXPECT_EQ(h.fps_num, 30000u);
  EXPECT_EQ(h.fps_den, 1001u);
  EXPECT_EQ(h.interlace, 'p');
  EXPECT_EQ(h.frame_data_bytes, 2u * (1920 * 1080 + 2 * 960 * 540));
}

TEST(Y4mHeader, EveryChromaTagMapsToItsFormat) {
  struct Case {
    const char* tag;
    PixelFormat pix;
    unsigned depth;
    Y4mLayout layout;
    std::uint64_t bytes;  // stored per frame at W7 H5
  };
  // W7 H5: luma 35; (7+1)/2 = 4, (5+1)/2 = 3, (7+3)/4 = 2
  const Case cases[] = {
      {"420jpeg", PixelFormat::yuv420, 8, Y4mLayout::native, 35 + 2 * 12},
      {"420mpeg2", PixelFormat::yuv420, 8, Y4mLayout::native, 35 + 2 * 12},
      {"420", PixelFormat::yuv420, 8, Y4mLayout::native, 35 + 2 * 12},
      {"420paldv", PixelFormat::yuv420, 8, Y4mLayout::paldv_420, 35 + 2 * 12},
      {"420p10", PixelFormat::yuv420, 10, Y4mLayout::native, 2 * (35 + 2 * 12)},
      {"420p12", PixelFormat::yuv420, 12, Y4mLayout::native, 2 * (35 + 2 * 12)},
      {"420p16", PixelFormat::yuv420, 16, Y4mLayout::native, 2 * (35 + 2 * 12)},
      {"422", PixelFormat::yuv422, 8, Y4mLayout::shift_422, 35 + 2 * 20},
      {"422p10", PixelFormat::yuv422, 10, Y4mLayout::native, 2 * (35 + 2 * 20)},
      {"422p12", PixelFormat::yuv422, 12, Y4mLayout::native, 2 * (35 + 2 * 20)},
      {"422p16", PixelFormat::yuv422, 16, Y4mLayout::native, 2 * (35 + 2 * 20)},
      {"444", PixelFormat::yuv444, 8, Y4mLayout::native, 3 * 35},
      {"444p10", PixelFormat::yuv444, 10, Y4mLayout::native, 2 * 3 * 35},
      {"444p12", PixelFormat::yuv444, 12, Y4mLayout::native, 2 * 3 * 35},
      {"444p16", PixelFormat::yuv444, 16, Y4mLayout::native, 2 * 3 * 35},
      {"444alpha", PixelFormat::yuv444, 8, Y4mLayout::alpha_444, 4 * 35},
      {"411", PixelFormat::yuv422, 8, Y4mLayout::upsample_411, 35 + 2 * 2 * 5},
      {"mono", PixelFormat::yuv420, 8, Y4mLayout::mono_420, 35},
  };
  for (const Case& c : cases) {
    const Y4mHeader h = parse_y4m_header(std::string("YUV4MPEG2 W7 H5 F1:1 Ip C") + c.tag, "x");
    EXPECT_EQ(h.format, (VideoFormat{7, 5, c.pix, c.depth})) << c.tag;
    EXPECT_EQ(h.layout, c.layout) << c.tag;
    EXPECT_EQ(h.frame_data_bytes, c.bytes) << c.tag;
    EXPECT_EQ(h.chroma_tag, c.tag);
  }
}

TEST(Y4mHeader, ExtraSpacesAndUnknownTagsAreIgnored) {
  const Y4mHeader h = parse_y4m_header("YUV4MPEG2  W2   H2 Z9 F1:1  XFOO=1 C444 ", "x");
  EXPECT_EQ(h.format, (VideoFormat{2, 2, PixelFormat::yuv444, 8}));
  // The last of repeated tags wins, as upstream's parser does.
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W2 H2 F1:1 W4", "x").format.width, 4u);
}

TEST(Y4mHeader, MissingMagic) {
  EXPECT_NE(error_of("YUV4MPEG W8 H4 F1:1").find("not a y4m file"), std::string::npos);
  EXPECT_NE(error_of("RIFF....").find("not a y4m file"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2W8 H4 F1:1").find("not a y4m file"), std::string::npos);
}

TEST(Y4mHeader, BadSizes) {
  EXPECT_NE(error_of("YUV4MPEG2 W0 H4 F1:1").find("width is 0"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W8 H0 F1:1").find("height is 0"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 Wabc H4 F1:1").find("width tag \"Wabc\" is not a number"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W-8 H4 F1:1").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W H4 F1:1").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W99999999999 H4 F1:1").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W65537 H4 F1:1").find("width 65537 exceeds the limit of 65536"), std::string::npos);
  // 65536 x 65536 4:4:4 16-bit is 24 GiB: over the frame size limit.
  EXPECT_NE(error_of("YUV4MPEG2 W65536 H65536 F1:1 C444p16").find("over the limit of 2147483648 bytes"),
            std::string::npos);
  // Just under the limit is accepted: 32768 x 32768 4:2:0 8-bit = 1.5 GiB.
  EXPECT_NO_THROW(parse_y4m_header("YUV4MPEG2 W32768 H32768 F1:1", "x"));
}

TEST(Y4mHeader, MissingRequiredTags) {
  EXPECT_NE(error_of("YUV4MPEG2 H4 F1:1").find("missing W tag"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 F1:1").find("missing H tag"), std::string::npos);
  // Upstream requires F too.
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4").find("missing F tag"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2").find("missing W, H, F tag"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F25").find("frame rate tag \"F25\""), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F25:1 A1").find("aspect tag"), std::string::npos);
}

TEST(Y4mHeader, InterlacedIsRejected) {
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 It").find("interlaced y4m input (It (top field first)) is not supported"),
            std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 Ib").find("bottom field first"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 Im").find("mixed"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 Ix").find("interlaced"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 Ipp").find("interlace tag"), std::string::npos);
  const Y4mHeader h = parse_y4m_header("YUV4MPEG2 W4 H4 F1:1 I?", "x");
  EXPECT_EQ(h.interlace, '?');
  EXPECT_TRUE(h.interlace_given);
}

TEST(Y4mHeader, UnsupportedChroma) {
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 C420p14").find("unsupported y4m chroma tag C420p14"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 Cmono16").find("unsupported y4m chroma tag Cmono16"), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 C").find("chroma tag \"C\""), std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 C420jpeg420jpeg42").find("chroma tag"), std::string::npos);
  // Non-printable bytes are escaped so the message stays one line.
  const std::string m = error_of(std::string("YUV4MPEG2 W4 H4 F1:1 C4") + '\n' + '\x01');
  EXPECT_NE(m.find("C4\\x0a\\x01"), std::string::npos) << m;
}

TEST(Y4mHeader, BitDepthMismatchBetweenCAndXyscss) {
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 C420jpeg XYSCSS=420P10")
                .find("contradicts itself: C420jpeg means 8-bit but XYSCSS=420P10 means 10-bit"),
            std::string::npos);
  EXPECT_NE(error_of("YUV4MPEG2 W4 H4 F1:1 C444p12 XYSCSS=444").find("12-bit"), std::string::npos);
  // Matching or depth-less siting names are fine.
  EXPECT_NO_THROW(parse_y4m_header("YUV4MPEG2 W4 H4 F1:1 C420paldv XYSCSS=420PALDV", "x"));
  EXPECT_NO_THROW(parse_y4m_header("YUV4MPEG2 W4 H4 F1:1 C444p12 XYSCSS=444P12", "x"));
  EXPECT_NO_THROW(parse_y4m_header("YUV4MPEG2 W4 H4 F1:1 C420jpeg XYSCSS=420JPEG", "x"));
}

}  // namespace
}  // namespace exactvmaf::io
