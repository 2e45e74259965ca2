// Raw planar YUV: layouts, odd sizes, high bit depth, partial last frame,
// file errors; and raw/y4m equality for the same frames.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/io.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace exactvmaf::io {
namespace {

using test::append;
using test::Bytes;
using test::plane_bytes;

Bytes frame_bytes_of(const FrameBuffer& fb) {
  Bytes b;
  for (unsigned p = 0; p < fb.format().planes(); ++p) append(b, plane_bytes(fb, p));
  return b;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RawReader, EveryLayoutAndDepthRoundTrips) {
  test::TempDir dir;
  for (PixelFormat pf : {PixelFormat::yuv420, PixelFormat::yuv422, PixelFormat::yuv444})
    for (unsigned depth : {8u, 10u, 12u, 16u})
      for (auto [w, h] : {std::pair{7u, 5u}, {64u, 2u}, {1u, 1u}}) {
        const VideoFormat f{w, h, pf, depth};
        const std::size_t n = f.packed_frame_bytes();
        // Chroma rounds up: 7x5 4:2:0 has 4x3 chroma planes.
        if (w == 7 && pf == PixelFormat::yuv420) {
          EXPECT_EQ(n, (35u + 2 * 12) * (depth > 8 ? 2 : 1));
        }
        if (w == 7 && pf == PixelFormat::yuv422) {
          EXPECT_EQ(n, (35u + 2 * 20) * (depth > 8 ? 2 : 1));
        }
        const Bytes a = test::pattern(n, w + depth), b = test::pattern(n, h + depth + 1);
        Bytes file = a;
        append(file, b);
        const std::string path = dir.write("clip.yuv", file);
        auto r = open_raw(path, RawParams{w, h, pf, depth});
        EXPECT_EQ(r->info().format, f);
        EXPECT_EQ(r->info().container, "yuv");
        ASSERT_EQ(r->info().frame_count, std::optional<std::uint64_t>(2));
        FrameBuffer fb(f);
        ASSERT_TRUE(r->read_frame(fb));
        EXPECT_EQ(frame_bytes_of(fb), a) << f.describe();
        ASSERT_TRUE(r->read_frame(fb));
        EXPECT_EQ(frame_bytes_of(fb), b) << f.describe();
        EXPECT_FALSE(r->read_frame(fb));
        EXPECT_EQ(r->frames_read(), 2u);
      }
}

TEST(RawReader, HighBitDepthIsLittleEndian) {
  test::TempDir dir;
  // 2x2 4:4:4 10-bit: sample values 0x0102, 0x03ff, ...
  Bytes file;
  for (int i = 0; i < 12; ++i) {
    const int v = (i * 97 + 0x102) & 0x3ff;
    file.push_back(static_cast<std::uint8_t>(v & 0xff));
    file.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  auto r = open_raw(dir.write("a.yuv", file), RawParams{2, 2, PixelFormat::yuv444, 10});
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->read_frame(fb));
  const auto v = fb.view();
  for (unsigned p = 0; p < 3; ++p)
    for (unsigned y = 0; y < 2; ++y)
      for (unsigned x = 0; x < 2; ++x)
        EXPECT_EQ(v.row<std::uint16_t>(p, y)[x], ((p * 4 + y * 2 + x) * 97 + 0x102) & 0x3ff);
}

TEST(RawReader, PartialLastFrameIsRefusedAtOpen) {
  // Upstream fails at the partial frame and writes nothing; we refuse the
  // file up front with a message naming it and the sizes.
  test::TempDir dir;
  const std::string path = dir.write("p.yuv", test::pattern(24 * 2 + 10, 3));  // 24 bytes a frame
  try {
    open_raw(path, RawParams{4, 4, PixelFormat::yuv420, 8});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": size is not a whole number of frames: 2 whole frames of 24 bytes "
                                            "(4x4 420 8-bit) and 10 bytes more (wrong -w/-h/-p/-b, or a truncated file?)");
  }
  EXPECT_THROW(open_raw(dir.write("short.yuv", Bytes(5, 1)), RawParams{4, 4, PixelFormat::yuv420, 8}), Error);
}

TEST(RawReader, SkipFrame) {
  test::TempDir dir;
  const Bytes file = test::pattern(24 * 3, 4);
  auto r = open_raw(dir.write("s.yuv", file), RawParams{4, 4, PixelFormat::yuv420, 8});
  FrameBuffer fb(r->info().format);
  ASSERT_TRUE(r->skip_frame());
  ASSERT_TRUE(r->skip_frame());
  ASSERT_TRUE(r->read_frame(fb));
  EXPECT_EQ(frame_bytes_of(fb), Bytes(file.begin() + 48, file.end()));
  EXPECT_FALSE(r->skip_frame());
  EXPECT_EQ(r->frames_read(), 3u);
}

TEST(RawReader, EmptyFileHasNoFrames) {
  test::TempDir dir;
  test::WarningCapture warnings;
  auto r = open_raw(dir.write("e.yuv", {}), RawParams{4, 4, PixelFormat::yuv420, 8});
  FrameBuffer fb(r->info().format);
  EXPECT_FALSE(r->read_frame(fb));
  EXPECT_TRUE(warnings.messages.empty());
}

TEST(RawReader, FileErrors) {
  test::TempDir dir;
  const RawParams p{4, 4, PixelFormat::yuv420, 8};
  const std::string missing = dir.file("nope.yuv");
  EXPECT_EQ(error_of([&] { open_raw(missing, p); }), missing + ": no such file");
  EXPECT_EQ(error_of([&] { open_y4m(missing); }), missing + ": no such file");
  std::filesystem::create_directory(dir.file("d.yuv"));
  EXPECT_EQ(error_of([&] { open_raw(dir.file("d.yuv"), p); }), dir.file("d.yuv") + ": is a directory, not a video file");
  // Write-only even for root.
  const std::string wo = "/proc/sys/vm/drop_caches";
  if (std::filesystem::exists(wo)) {
    EXPECT_EQ(error_of([&] { open_raw(wo, p); }), wo + ": cannot open: Permission denied");
  }
}

TEST(RawReader, BadParameters) {
  test::TempDir dir;
  const std::string path = dir.write("x.yuv", Bytes(100, 0));
  EXPECT_EQ(error_of([&] { open_raw(path, RawParams{0, 4, PixelFormat::yuv420, 8}); }),
            path + ": raw size 0x4 is out of range (1 to 65536)");
  EXPECT_EQ(error_of([&] { open_raw(path, RawParams{70000, 4, PixelFormat::yuv420, 8}); }),
            path + ": raw size 70000x4 is out of range (1 to 65536)");
  EXPECT_EQ(error_of([&] { open_raw(path, RawParams{4, 4, PixelFormat::yuv420, 9}); }),
            path + ": raw bit depth 9 is not supported (use 8, 10, 12 or 16)");
  EXPECT_EQ(error_of([&] { open_raw(path, RawParams{4, 4, PixelFormat::yuv400, 8}); }),
            path + ": raw pixel format 400 is not supported (use 420, 422 or 444)");
  EXPECT_EQ(error_of([&] { open_raw(path, RawParams{65536, 65536, PixelFormat::yuv444, 16}); }),
            path + ": a 65536x65536 444 16-bit frame is 25769803776 bytes, over the limit of 2147483648 bytes");
}

TEST(RawY4mEquality, SameFramesGiveIdenticalPlanes) {
  test::TempDir dir;
  struct Case {
    VideoFormat f;
    const char* tag;
  };
  for (const Case& c : {Case{{33, 17, PixelFormat::yuv420, 8}, "420jpeg"},
                        Case{{33, 17, PixelFormat::yuv420, 10}, "420p10"},
                        Case{{20, 6, PixelFormat::yuv422, 12}, "422p12"},
                        Case{{70, 3, PixelFormat::yuv444, 8}, "444"},
                        Case{{8, 8, PixelFormat::yuv444, 16}, "444p16"}}) {
    const std::size_t n = c.f.packed_frame_bytes();
    Bytes raw, y4m = test::bytes_of("YUV4MPEG2 W" + std::to_string(c.f.width) + " H" + std::to_string(c.f.height) +
                                    " F25:1 Ip A1:1 C" + c.tag + "\n");
    for (unsigned i = 0; i < 3; ++i) {
      Bytes frame = test::pattern(n, i + 10 * c.f.bitdepth);
      if (c.f.bitdepth > 8)  // keep samples inside the bit depth
        for (std::size_t k = 1; k < frame.size(); k += 2) frame[k] &= static_cast<std::uint8_t>((1u << (c.f.bitdepth - 8)) - 1);
      append(raw, frame);
      append(y4m, "FRAME\n");
      append(y4m, frame);
    }
    auto rr = open_raw(dir.write("a.yuv", raw), RawParams{c.f.width, c.f.height, c.f.pix_fmt, c.f.bitdepth});
    auto ry = open_y4m(dir.write("a.y4m", y4m));
    ASSERT_EQ(rr->info().format, ry->info().format);
    FrameBuffer a(c.f), b(c.f);
    for (unsigned i = 0; i < 3; ++i) {
      ASSERT_TRUE(rr->read_frame(a));
      ASSERT_TRUE(ry->read_frame(b));
      for (unsigned p = 0; p < 3; ++p)
        ASSERT_EQ(plane_bytes(a, p), plane_bytes(b, p)) << c.tag << " frame " << i << " plane " << p;
    }
    EXPECT_FALSE(rr->read_frame(a));
    EXPECT_FALSE(ry->read_frame(b));
  }
}

TEST(RawY4mEquality, FixtureClipsWhenPresent) {
  // The fixture helper's clips (tests/fixtures/), if generated.
  const std::string base = std::string(EXACTVMAF_SOURCE_DIR) + "/tests/fixtures/";
  int compared = 0;
  for (const char* stem : {"c01_176x144_8b_420_ref", "c03_176x144_10b_420_ref"}) {
    const std::string y4m = base + stem + ".y4m", yuv = base + stem + ".yuv";
    if (!std::filesystem::exists(y4m) || !std::filesystem::exists(yuv)) continue;
    auto ry = open_video(y4m, std::nullopt);
    const VideoFormat f = ry->info().format;
    auto rr = open_video(yuv, RawParams{f.width, f.height, f.pix_fmt, f.bitdepth});
    FrameBuffer a(f), b(f);
    for (;;) {
      const bool more_y = ry->read_frame(a), more_r = rr->read_frame(b);
      ASSERT_EQ(more_y, more_r);
      if (!more_y) break;
      for (unsigned p = 0; p < 3; ++p) ASSERT_EQ(plane_bytes(a, p), plane_bytes(b, p));
    }
    EXPECT_GT(ry->frames_read(), 0u);
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "fixture clips not generated";
}

}  // namespace
}  // namespace exactvmaf::io

namespace exactvmaf::io {
namespace {

TEST(RawReader, ReadsFramesByIndexFromManyThreads) {
  test::TempDir dir;
  const VideoFormat f{37, 11, PixelFormat::yuv420, 10};  // padded rows, 16-bit words
  const std::size_t fb = f.packed_frame_bytes();
  const Bytes file = test::pattern(fb * 9, 21);
  const std::string path = dir.write("many.yuv", file);
  auto r = open_raw(path, RawParams{f.width, f.height, f.pix_fmt, f.bitdepth});
  ASSERT_TRUE(r->random_access());
  ASSERT_TRUE(r->skip_frame());  // sequential reads do not move frame indices
  std::vector<std::thread> threads;
  std::vector<int> ok(9, 0);
  for (unsigned t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      FrameBuffer buf(f);
      for (unsigned k = t; k < 9; k += 3) {
        r->read_frame_at(8 - k, buf);
        ok[8 - k] = frame_bytes_of(buf) == Bytes(file.begin() + (8 - k) * fb, file.begin() + (9 - k) * fb);
      }
    });
  for (auto& t : threads) t.join();
  for (unsigned k = 0; k < 9; ++k) EXPECT_EQ(ok[k], 1) << "frame " << k;
  FrameBuffer buf(f);
  EXPECT_TRUE(r->read_frame(buf));  // the sequential position is untouched: frame 1
  EXPECT_EQ(frame_bytes_of(buf), Bytes(file.begin() + fb, file.begin() + 2 * fb));
}

TEST(RawReader, PipesAreNotRandomAccess) {
  const VideoFormat f{8, 8, PixelFormat::yuv420, 8};
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
  auto r = open_raw(path, RawParams{f.width, f.height, f.pix_fmt, f.bitdepth});
  EXPECT_FALSE(r->random_access());
  FrameBuffer buf(f);
  EXPECT_THROW(r->read_frame_at(0, buf), Error);
  ::close(fds[1]);
  r.reset();
  ::close(fds[0]);
}

}  // namespace
}  // namespace exactvmaf::io

namespace exactvmaf::io {
namespace {

// With set_luma_only, luma is read exactly as before, chroma is left as it
// was in the buffer, and the next frame still starts at the right place
// (sequential reads skip the chroma bytes); raw by index and y4m too.
TEST(LumaOnly, ReadsLumaLeavesChromaAndKeepsFraming) {
  test::TempDir dir;
  for (unsigned depth : {8u, 10u}) {
    const VideoFormat f{7, 5, PixelFormat::yuv420, depth};
    const std::size_t n = f.packed_frame_bytes();
    const std::size_t luma = std::size_t{7} * 5 * f.bytes_per_sample();
    Bytes file;
    for (unsigned i = 0; i < 3; ++i) append(file, test::pattern(n, 11 * i + depth));
    const std::string path = dir.write("l.yuv", file);
    auto full = open_raw(path, RawParams{7, 5, PixelFormat::yuv420, depth});
    auto lo = open_raw(path, RawParams{7, 5, PixelFormat::yuv420, depth});
    lo->set_luma_only(true);
    FrameBuffer a(f), b(f), c(f);
    for (unsigned i = 0; i < 3; ++i) {
      for (unsigned p = 1; p < 3; ++p) {
        std::memset(b.plane(p), 0xA5, static_cast<std::size_t>(b.stride(p)) * f.plane_height(p));
        std::memset(c.plane(p), 0xA5, static_cast<std::size_t>(c.stride(p)) * f.plane_height(p));
      }
      ASSERT_TRUE(full->read_frame(a));
      ASSERT_TRUE(lo->read_frame(b));
      lo->read_frame_at(i, c);
      EXPECT_EQ(plane_bytes(b, 0), plane_bytes(a, 0)) << "frame " << i;
      EXPECT_EQ(plane_bytes(c, 0), plane_bytes(a, 0)) << "frame " << i;
      EXPECT_EQ(plane_bytes(a, 0), Bytes(file.begin() + i * n, file.begin() + i * n + luma));
      for (unsigned p = 1; p < 3; ++p) {
        const Bytes untouched(plane_bytes(b, p).size(), 0xA5);
        EXPECT_EQ(plane_bytes(b, p), untouched);
        EXPECT_EQ(plane_bytes(c, p), untouched);
      }
    }
    EXPECT_FALSE(lo->read_frame(b));
  }
  // y4m, native 4:2:0: the same luma, framing kept.
  Bytes y4m = test::bytes_of("YUV4MPEG2 W4 H2 F25:1 C420jpeg\n");
  Bytes frames[2] = {test::pattern(12, 3), test::pattern(12, 4)};
  for (const auto& fr : frames) {
    append(y4m, std::string("FRAME\n"));
    append(y4m, fr);
  }
  auto yr = open_y4m(dir.write("l.y4m", y4m));
  yr->set_luma_only(true);
  FrameBuffer fb(yr->info().format);
  for (const auto& fr : frames) {
    ASSERT_TRUE(yr->read_frame(fb));
    EXPECT_EQ(plane_bytes(fb, 0), Bytes(fr.begin(), fr.begin() + 8));
  }
  EXPECT_FALSE(yr->read_frame(fb));
}

}  // namespace
}  // namespace exactvmaf::io
