// y4m frames: native layouts, the conversions upstream applies (checked
// sample by sample against hand-worked values), FRAME headers, truncation.
#include <gtest/gtest.h>

#include "exactvmaf/error.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace exactvmaf::io {
namespace {

using test::append;
using test::Bytes;
using test::bytes_of;
using test::plane_bytes;

std::unique_ptr<VideoReader> open_mem(const Bytes& data, std::size_t max_chunk = 0) {
  return open_y4m_stream(InputStream(make_memory_source(data.data(), data.size(), max_chunk), "mem.y4m"));
}

std::string read_error(VideoReader& r) {
  FrameBuffer fb(r.info().format);
  try {
    while (r.read_frame(fb)) {
    }
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

Bytes rows_of(std::initializer_list<std::initializer_list<int>> rows) {
  Bytes b;
  for (auto r : rows)
    for (int v : r) b.push_back(static_cast<std::uint8_t>(v));
  return b;
}

TEST(Y4mReader, Native420TwoFramesAnyChunking) {
  // 5x3 4:2:0: luma 15, chroma 3x2 = 6 each
  const Bytes f0 = test::pattern(27, 1), f1 = test::pattern(27, 2);
  Bytes s = bytes_of("YUV4MPEG2 W5 H3 F25:1 Ip C420jpeg\n");
  append(s, "FRAME\n");
  append(s, f0);
  append(s, "FRAME Ixyz XFOO=bar\n");  // parameters are skipped
  append(s, f1);
  for (std::size_t chunk : {0, 1, 3, 7}) {
    auto r = open_mem(s, chunk);
    EXPECT_EQ(r->info().format, (VideoFormat{5, 3, PixelFormat::yuv420, 8}));
    EXPECT_EQ(r->info().container, "y4m");
    EXPECT_EQ(r->info().y4m_chroma_tag, "420jpeg");
    EXPECT_EQ(r->info().fps_num, 25u);
    EXPECT_FALSE(r->info().frame_count.has_value());
    FrameBuffer fb(r->info().format);
    for (const Bytes* f : {&f0, &f1}) {
      ASSERT_TRUE(r->read_frame(fb)) << chunk;
      Bytes got = plane_bytes(fb, 0);
      append(got, plane_bytes(fb, 1));
      append(got, plane_bytes(fb, 2));
      EXPECT_EQ(got, *f) << chunk;
      // Row padding stays zero after rows are spread to the stride.
      for (unsigned p = 0; p < 3; ++p)
        for (unsigned y = 0; y < fb.format().plane_height(p); ++y)
          for (auto x = fb.row_bytes(p); x < static_cast<std::size_t>(fb.stride(p)); ++x)
            ASSERT_EQ(fb.plane(p)[y * fb.stride(p) + x], 0);
    }
    EXPECT_FALSE(r->read_frame(fb));
    EXPECT_FALSE(r->read_frame(fb));
    EXPECT_EQ(r->frames_read(), 2u);
  }
}

TEST(Y4mReader, TenBitLittleEndian) {
  Bytes s = bytes_of("YUV4MPEG2 W2 H2 F1:1 Ip C444p10\n");
  append(s, "FRAME\n");
  // 3 planes of 4 samples: 0x0123, 0x03FF, ...
  const Bytes data = test::pattern(24, 9);
  append(s, data);
  auto r = open_mem(s);
  EXPECT_EQ(r->info().format, (VideoFormat{2, 2, PixelFormat::yuv444, 10}));
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->read_frame(fb));
  const auto v = fb.view();
  for (unsigned p = 0; p < 3; ++p)
    for (unsigned y = 0; y < 2; ++y)
      for (unsigned x = 0; x < 2; ++x) {
        const std::size_t i = 2 * (p * 4 + y * 2 + x);
        EXPECT_EQ(v.row<std::uint16_t>(p, y)[x], data[i] | data[i + 1] << 8);
      }
}

TEST(Y4mReader, C422IsShiftedAQuarterPelRight) {
  // 8x2 4:2:2: luma 16, chroma 4x2 per plane.
  Bytes s = bytes_of("YUV4MPEG2 W8 H2 F1:1 Ip C422\nFRAME\n");
  const Bytes luma = test::pattern(16, 3);
  append(s, luma);
  append(s, rows_of({{0, 0, 128, 255}, {9, 9, 9, 9}}));          // Cb
  append(s, rows_of({{255, 128, 0, 0}, {0, 255, 0, 255}}));      // Cr
  auto r = open_mem(s);
  EXPECT_EQ(r->info().format, (VideoFormat{8, 2, PixelFormat::yuv422, 8}));
  EXPECT_EQ(r->info().y4m_chroma_tag, "422");
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->read_frame(fb));
  EXPECT_EQ(plane_bytes(fb, 0), luma);
  // Cb row 0: see ChromaConvert.ShiftRightQuarterByHand; row 1 is flat.
  EXPECT_EQ(plane_bytes(fb, 1), rows_of({{0, 19, 168, 255}, {9, 9, 9, 9}}));
  // Cr row 0 [255 128 0 0]:
  //  x0: (4-17+114)*255 + 35*128 = 30235; 30299>>7 = 236
  //  x1: (4-17)*255 + 114*128 = 11277; 11341>>7 = 88
  //  x2: 4*255 - 17*128 = -1156 -> 0
  //  x3: 4*128 = 512; 576>>7 = 4
  // Cr row 1 [0 255 0 255]:
  //  x0: 35*255 + 1*255 = 9180; 9244>>7 = 72
  //  x1 reads 0,0,255,0,255,255: (114-9+1)*255 = 27030; 27094>>7 = 211
  //  x2 reads 0,255,0,255,255,255: (-17+35-9+1)*255 = 2550; 2614>>7 = 20
  //  x3 reads 255,0,255,255,255,255: (4+114+35-9+1)*255 = 36975; 37039>>7 = 289 -> 255
  EXPECT_EQ(plane_bytes(fb, 2), rows_of({{236, 88, 0, 4}, {72, 211, 20, 255}}));
}

TEST(Y4mReader, C420paldvShiftsRightThenCbUpCrDown) {
  // 8x4 4:2:0: chroma 4x2. Flat rows survive the horizontal pass unchanged.
  Bytes s = bytes_of("YUV4MPEG2 W8 H4 F1:1 Ip C420paldv\nFRAME\n");
  const Bytes luma = test::pattern(32, 4);
  append(s, luma);
  const Bytes chroma = rows_of({{128, 128, 128, 128}, {255, 255, 255, 255}});
  append(s, chroma);  // Cb
  append(s, chroma);  // Cr
  auto r = open_mem(s);
  EXPECT_EQ(r->info().format, (VideoFormat{8, 4, PixelFormat::yuv420, 8}));
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->read_frame(fb));
  EXPECT_EQ(plane_bytes(fb, 0), luma);
  // Cb up (see ChromaConvert.VerticalUsesStridesAndColumns): 115, 228
  EXPECT_EQ(plane_bytes(fb, 1), rows_of({{115, 115, 115, 115}, {228, 228, 228, 228}}));
  // Cr down, taps [4 -17 114 35 -9 1] at y-2..y+3 over [128, 255]:
  //  y0 reads 0,0,0,1,1,1: 101*128 + 27*255 = 19813; 19877>>7 = 155
  //  y1 reads 0,0,1,1,1,1: -13*128 + 141*255 = 34291; 34355>>7 = 268 -> 255
  EXPECT_EQ(plane_bytes(fb, 2), rows_of({{155, 155, 155, 155}, {255, 255, 255, 255}}));
}

TEST(Y4mReader, C420paldvHorizontalThenVertical) {
  // 8x2: chroma 4x1; one row, so the vertical pass is the identity
  // (all taps read the same row) and only the horizontal shift shows.
  Bytes s = bytes_of("YUV4MPEG2 W8 H2 F1:1 Ip C420paldv\nFRAME\n");
  append(s, Bytes(16, 50));
  append(s, rows_of({{0, 0, 128, 255}}));
  append(s, rows_of({{0, 0, 128, 255}}));
  auto r = open_mem(s);
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->read_frame(fb));
  EXPECT_EQ(plane_bytes(fb, 1), rows_of({{0, 19, 168, 255}}));
  EXPECT_EQ(plane_bytes(fb, 2), rows_of({{0, 19, 168, 255}}));
}

TEST(Y4mReader, C411IsUpsampledTo422) {
  // W7 H1: luma 7, source chroma (7+3)/4 = 2 per row, output 4:2:2 width 4.
  Bytes s = bytes_of("YUV4MPEG2 W7 H1 F1:1 Ip C411\nFRAME\n");
  const Bytes luma = test::pattern(7, 5);
  append(s, luma);
  append(s, rows_of({{0, 255}}));   // Cb
  append(s, rows_of({{200, 200}})); // Cr (flat: stays 200)
  auto r = open_mem(s);
  EXPECT_EQ(r->info().format, (VideoFormat{7, 1, PixelFormat::yuv422, 8}));
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->read_frame(fb));
  EXPECT_EQ(plane_bytes(fb, 0), luma);
  EXPECT_EQ(plane_bytes(fb, 1), rows_of({{34, 161, 253, 255}}));  // see Upsample411ByHand
  EXPECT_EQ(plane_bytes(fb, 2), rows_of({{200, 200, 200, 200}}));
}

TEST(Y4mReader, MonoGets420ChromaAt128) {
  Bytes s = bytes_of("YUV4MPEG2 W3 H3 F1:1 Ip Cmono\n");
  const Bytes a = test::pattern(9, 6), b = test::pattern(9, 7);
  append(s, "FRAME\n");
  append(s, a);
  append(s, "FRAME\n");
  append(s, b);
  auto r = open_mem(s);
  EXPECT_EQ(r->info().format, (VideoFormat{3, 3, PixelFormat::yuv420, 8}));
  EXPECT_EQ(r->info().y4m_chroma_tag, "mono");
  FrameBuffer fb(r->info().format);
  for (const Bytes* f : {&a, &b}) {
    ASSERT_TRUE(r->read_frame(fb));
    EXPECT_EQ(plane_bytes(fb, 0), *f);
    EXPECT_EQ(plane_bytes(fb, 1), Bytes(4, 128));
    EXPECT_EQ(plane_bytes(fb, 2), Bytes(4, 128));
  }
  EXPECT_FALSE(r->read_frame(fb));
}

TEST(Y4mReader, AlphaPlaneIsDropped) {
  Bytes s = bytes_of("YUV4MPEG2 W2 H2 F1:1 Ip C444alpha\n");
  const Bytes a = test::pattern(12, 8), b = test::pattern(12, 9);
  for (const Bytes* f : {&a, &b}) {
    append(s, "FRAME\n");
    append(s, *f);
    append(s, Bytes(4, 0xAA));  // alpha
  }
  auto r = open_mem(s);
  EXPECT_EQ(r->info().format, (VideoFormat{2, 2, PixelFormat::yuv444, 8}));
  FrameBuffer fb(r->info().format);
  for (const Bytes* f : {&a, &b}) {
    ASSERT_TRUE(r->read_frame(fb));
    Bytes got = plane_bytes(fb, 0);
    append(got, plane_bytes(fb, 1));
    append(got, plane_bytes(fb, 2));
    EXPECT_EQ(got, *f);
  }
  EXPECT_FALSE(r->read_frame(fb));
}

TEST(Y4mReader, SkipFrame) {
  Bytes s = bytes_of("YUV4MPEG2 W2 H2 F1:1 Ip C420\n");
  const Bytes a = test::pattern(6, 1), b = test::pattern(6, 2);
  append(s, "FRAME\n");
  append(s, a);
  append(s, "FRAME abc\n");
  append(s, b);
  auto r = open_mem(s, 2);
  ASSERT_TRUE(r->skip_frame());
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->read_frame(fb));
  EXPECT_EQ(plane_bytes(fb, 0), Bytes(b.begin(), b.begin() + 4));
  EXPECT_FALSE(r->skip_frame());
  EXPECT_EQ(r->frames_read(), 2u);
}

TEST(Y4mReader, TruncatedFrame) {
  Bytes s = bytes_of("YUV4MPEG2 W4 H4 F1:1 Ip\nFRAME\n");
  append(s, Bytes(24, 1));
  append(s, "FRAME\n");
  append(s, Bytes(10, 1));
  auto r = open_mem(s);
  EXPECT_EQ(read_error(*r), "mem.y4m: truncated frame 1 (got 10 of 24 bytes)");
  // In the chroma part, and through a conversion.
  Bytes c = bytes_of("YUV4MPEG2 W4 H4 F1:1 Ip C420paldv\nFRAME\n");
  append(c, Bytes(20, 1));
  EXPECT_EQ(read_error(*open_mem(c)), "mem.y4m: truncated frame 0 (got 20 of 24 bytes)");
  Bytes sk = bytes_of("YUV4MPEG2 W4 H4 F1:1 Ip\nFRAME\n");
  append(sk, Bytes(23, 1));
  auto rs = open_mem(sk);
  EXPECT_THROW(rs->skip_frame(), Error);
}

TEST(Y4mReader, FrameHeaderGarbage) {
  const std::string head = "YUV4MPEG2 W2 H2 F1:1 Ip\n";
  auto with = [&](const std::string& after) {
    Bytes s = bytes_of(head + "FRAME\n");
    append(s, Bytes(6, 1));
    append(s, after);
    return s;
  };
  EXPECT_EQ(read_error(*open_mem(with("FRAMX\n123456"))),
            "mem.y4m: frame 1: expected a FRAME header, found \"FRAMX\"");
  EXPECT_EQ(read_error(*open_mem(with("\x01\x02"))), "mem.y4m: frame 1: expected a FRAME header, found \"\\x01\\x02\"");
  EXPECT_EQ(read_error(*open_mem(with("FRA"))), "mem.y4m: truncated FRAME header of frame 1");
  EXPECT_EQ(read_error(*open_mem(with("FRAME"))), "mem.y4m: truncated FRAME header of frame 1");
  EXPECT_EQ(read_error(*open_mem(with("FRAME abc"))), "mem.y4m: truncated FRAME header of frame 1");
  EXPECT_EQ(read_error(*open_mem(with("FRAMEX\n"))), "mem.y4m: frame 1: malformed FRAME header (\"FRAMEX\")");
  // Parameters: 78 bytes are accepted, 79 are not (upstream's bound).
  Bytes ok = with("FRAME " + std::string(78, 'x') + "\n");
  append(ok, Bytes(6, 2));
  auto r = open_mem(ok);
  FrameBuffer fb(r->info().format);
  EXPECT_TRUE(r->read_frame(fb));
  EXPECT_TRUE(r->read_frame(fb));
  EXPECT_FALSE(r->read_frame(fb));
  EXPECT_EQ(read_error(*open_mem(with("FRAME " + std::string(79, 'x') + "\n"))),
            "mem.y4m: frame 1: FRAME header parameters longer than 78 bytes");
}

TEST(Y4mReader, HeaderLineErrors) {
  auto open_error = [](const Bytes& s) -> std::string {
    try {
      open_mem(s);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(open_error({}), "mem.y4m: empty input, expected a y4m header");
  EXPECT_EQ(open_error(bytes_of("YUV4MPEG2 W2 H2 F1:1")),
            "mem.y4m: truncated y4m header (no newline after 20 bytes)");
  EXPECT_EQ(open_error(bytes_of("YUV4MPEG2 W2 H2 F1:1 X" + std::string(2000, 'a') + "\n")),
            "mem.y4m: y4m header longer than 1024 bytes");
  EXPECT_EQ(open_error(Bytes(5000, 0)),
            "mem.y4m: not a y4m file: the header does not start with \"YUV4MPEG2 \" (found \"\\x00\")");
  EXPECT_EQ(open_error(bytes_of("YUV4MP")),
            "mem.y4m: not a y4m file: the header does not start with \"YUV4MPEG2 \" (found \"YUV4MP\")");
  EXPECT_NE(open_error(bytes_of("YUV4MPEG2 W2 H2 F1:1 It\nFRAME\n")).find("interlaced"), std::string::npos);
}

TEST(Y4mReader, WarnsWhenInterlacingIsUnknown) {
  test::WarningCapture warnings;
  open_mem(bytes_of("YUV4MPEG2 W2 H2 F1:1\n"));
  open_mem(bytes_of("YUV4MPEG2 W2 H2 F1:1 I?\n"));
  open_mem(bytes_of("YUV4MPEG2 W2 H2 F1:1 Ip\n"));
  ASSERT_EQ(warnings.messages.size(), 2u);
  EXPECT_EQ(warnings.messages[0], "mem.y4m: y4m header has no I tag: interlacing unknown, assuming progressive");
  EXPECT_EQ(warnings.messages[1], "mem.y4m: y4m header says I? (interlacing unknown): assuming progressive");
}

TEST(Y4mReader, FrameBufferOfAnotherFormatIsRefused) {
  auto r = open_mem(bytes_of("YUV4MPEG2 W2 H2 F1:1 Ip\nFRAME\n"));
  FrameBuffer wrong(VideoFormat{4, 2, PixelFormat::yuv420, 8});
  EXPECT_THROW(r->read_frame(wrong), Error);
}

}  // namespace
}  // namespace exactvmaf::io
