// open_video's choice between y4m and raw, and its messages.
#include <gtest/gtest.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/io.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace exactvmaf::io {
namespace {

using test::append;
using test::Bytes;
using test::bytes_of;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

Bytes small_y4m() {
  Bytes s = bytes_of("YUV4MPEG2 W4 H2 F25:1 Ip C420jpeg\nFRAME\n");
  append(s, Bytes(12, 7));
  return s;
}

TEST(OpenVideo, Y4mByMagicWhateverTheName) {
  test::TempDir dir;
  for (const char* name : {"a.y4m", "a.yuv", "noext"}) {
    auto r = open_video(dir.write(name, small_y4m()), std::nullopt);
    EXPECT_EQ(r->info().container, "y4m") << name;
    EXPECT_EQ(r->info().format, (VideoFormat{4, 2, PixelFormat::yuv420, 8}));
  }
}

TEST(OpenVideo, Y4mMagicWinsOverRawOptionsWithAWarning) {
  test::TempDir dir;
  const std::string path = dir.write("a.y4m", small_y4m());
  test::WarningCapture warnings;
  auto r = open_video(path, RawParams{4, 2, PixelFormat::yuv420, 8});
  EXPECT_EQ(r->info().container, "y4m");
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(warnings.messages[0],
            path + ": input starts with a YUV4MPEG2 header: reading it as y4m and ignoring -w/-h/-p/-b");
  // The peeked bytes were not lost.
  FrameBuffer fb(r->info().format);
  EXPECT_TRUE(r->read_frame(fb));
  EXPECT_EQ(fb.plane(0)[0], 7);
}

TEST(OpenVideo, RawWhenOptionsGiven) {
  test::TempDir dir;
  const std::string path = dir.write("a.yuv", Bytes(24, 3));
  auto r = open_video(path, RawParams{4, 4, PixelFormat::yuv420, 8});
  EXPECT_EQ(r->info().container, "yuv");
  FrameBuffer fb(r->info().format);
  EXPECT_TRUE(r->read_frame(fb));
  EXPECT_FALSE(r->read_frame(fb));
  // A .y4m name without the magic is raw too when options are given.
  auto r2 = open_video(dir.write("b.y4m", Bytes(24, 3)), RawParams{4, 4, PixelFormat::yuv420, 8});
  EXPECT_EQ(r2->info().container, "yuv");
}

TEST(OpenVideo, MissingRawOptionsAreNamed) {
  test::TempDir dir;
  const std::string path = dir.write("a.yuv", Bytes(24, 3));
  EXPECT_EQ(error_of([&] { open_video(path, std::nullopt); }),
            path + ": not a y4m file (no YUV4MPEG2 header); raw YUV input needs -w, -h, -p and -b");
  EXPECT_EQ(error_of([&] { open_video(path, RawParams{4, 0, PixelFormat::yuv420, 0}); }),
            path + ": raw YUV input needs -w, -h, -p and -b; missing -h, -b");
  RawOptions only_w;
  only_w.width = 4;
  EXPECT_EQ(error_of([&] { open_video_with(path, only_w); }),
            path + ": raw YUV input needs -w, -h, -p and -b; missing -h, -p, -b");
  RawOptions no_p;
  no_p.width = 4;
  no_p.height = 4;
  no_p.bitdepth = 8;
  EXPECT_EQ(error_of([&] { open_video_with(path, no_p); }),
            path + ": raw YUV input needs -w, -h, -p and -b; missing -p");
}

TEST(OpenVideo, Y4mNameWithoutMagicFailsOnTheHeader) {
  test::TempDir dir;
  const std::string path = dir.write("a.y4m", Bytes(24, 3));
  EXPECT_EQ(error_of([&] { open_video(path, std::nullopt); }),
            path + ": not a y4m file: the header does not start with \"YUV4MPEG2 \" (found \"\\x03\")");
  EXPECT_EQ(error_of([&] { open_video(dir.write("e.y4m", {}), std::nullopt); }),
            dir.file("e.y4m") + ": empty input, expected a y4m header");
}

TEST(OpenVideo, FileErrors) {
  test::TempDir dir;
  EXPECT_EQ(error_of([&] { open_video(dir.file("missing.y4m"), std::nullopt); }),
            dir.file("missing.y4m") + ": no such file");
  EXPECT_EQ(error_of([&] { open_video(dir.file(""), std::nullopt); }),
            dir.file("") + ": is a directory, not a video file");
}

}  // namespace
}  // namespace exactvmaf::io
