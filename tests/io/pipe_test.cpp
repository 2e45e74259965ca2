// Standard input ("-") and named pipes: sizes unknown, short reads.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "exactvmaf/error.hpp"
#include "exactvmaf/io.hpp"
#include "io_test_util.hpp"

namespace exactvmaf::io {
namespace {

using test::append;
using test::Bytes;

// Writes `data` to fd in small pieces (pipes then deliver short reads).
void write_slowly(int fd, const Bytes& data, std::size_t piece) {
  for (std::size_t off = 0; off < data.size();) {
    const std::size_t n = std::min(piece, data.size() - off);
    const ssize_t w = ::write(fd, data.data() + off, n);
    if (w <= 0) break;
    off += static_cast<std::size_t>(w);
    if (off % (piece * 8) == 0) std::this_thread::yield();
  }
}

// Runs `body` with standard input replaced by a pipe fed with `data`.
template <class F>
void with_stdin_pipe(const Bytes& data, F body) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const int saved = ::dup(0);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(fds[0], 0), 0);
  ::close(fds[0]);
  std::thread writer([&] {
    write_slowly(fds[1], data, 7);
    ::close(fds[1]);
  });
  body();
  // Drain so the writer never blocks on a full pipe, then restore stdin.
  char sink[4096];
  while (::read(0, sink, sizeof sink) > 0) {
  }
  writer.join();
  ::dup2(saved, 0);
  ::close(saved);
}

Bytes y4m_stream(const VideoFormat& f, const char* tag, const std::vector<Bytes>& frames) {
  Bytes s = test::bytes_of("YUV4MPEG2 W" + std::to_string(f.width) + " H" + std::to_string(f.height) + " F25:1 Ip C" +
                           tag + "\n");
  for (const Bytes& fr : frames) {
    append(s, "FRAME\n");
    append(s, fr);
  }
  return s;
}

Bytes frame_bytes_of(const FrameBuffer& fb) {
  Bytes b;
  for (unsigned p = 0; p < fb.format().planes(); ++p) append(b, test::plane_bytes(fb, p));
  return b;
}

TEST(Stdin, Y4mFromAPipe) {
  const VideoFormat f{67, 9, PixelFormat::yuv420, 8};
  std::vector<Bytes> frames;
  for (unsigned i = 0; i < 5; ++i) frames.push_back(test::pattern(f.packed_frame_bytes(), i));
  with_stdin_pipe(y4m_stream(f, "420jpeg", frames), [&] {
    auto r = open_video("-", std::nullopt);
    EXPECT_EQ(r->path(), "-");
    EXPECT_EQ(r->info().format, f);
    EXPECT_FALSE(r->info().frame_count.has_value());
    FrameBuffer fb(f);
    for (const Bytes& fr : frames) {
      ASSERT_TRUE(r->read_frame(fb));
      EXPECT_EQ(frame_bytes_of(fb), fr);
    }
    EXPECT_FALSE(r->read_frame(fb));
  });
}

TEST(Stdin, RawFromAPipeWhenRawParamsAreGiven) {
  const VideoFormat f{130, 4, PixelFormat::yuv422, 10};  // stride > row bytes
  Bytes all;
  for (unsigned i = 0; i < 3; ++i) append(all, test::pattern(f.packed_frame_bytes(), i + 40));
  append(all, Bytes(5, 1));  // partial last frame: known only at the end
  test::WarningCapture warnings;
  with_stdin_pipe(all, [&] {
    auto r = open_video("-", RawParams{f.width, f.height, f.pix_fmt, f.bitdepth});
    EXPECT_EQ(r->info().container, "yuv");
    EXPECT_FALSE(r->info().frame_count.has_value());
    EXPECT_TRUE(warnings.messages.empty());
    FrameBuffer fb(f);
    for (unsigned i = 0; i < 3; ++i) {
      ASSERT_TRUE(r->read_frame(fb));
      EXPECT_EQ(frame_bytes_of(fb),
                Bytes(all.begin() + i * f.packed_frame_bytes(), all.begin() + (i + 1) * f.packed_frame_bytes()));
    }
    try {
      r->read_frame(fb);
      ADD_FAILURE() << "no error for the partial frame";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "-: size is not a whole number of frames: 3 whole frames of 2080 bytes "
                                       "(130x4 422 10-bit) and 5 bytes more (wrong -w/-h/-p/-b, or a truncated file?)");
    }
    EXPECT_TRUE(warnings.messages.empty());
  });
}

TEST(Stdin, TruncatedY4mFromAPipe) {
  const VideoFormat f{8, 8, PixelFormat::yuv420, 8};
  Bytes s = y4m_stream(f, "420", {test::pattern(96, 1)});
  append(s, "FRAME\n");
  append(s, Bytes(50, 0));
  with_stdin_pipe(s, [&] {
    auto r = open_video("-", std::nullopt);
    FrameBuffer fb(f);
    EXPECT_TRUE(r->read_frame(fb));
    try {
      r->read_frame(fb);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "-: truncated frame 1 (got 50 of 96 bytes)");
    }
  });
}

TEST(NamedPipe, Y4mAndRawThroughAFifo) {
  test::TempDir dir;
  const std::string fifo = dir.file("video.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const VideoFormat f{64, 16, PixelFormat::yuv444, 8};
  std::vector<Bytes> frames;
  for (unsigned i = 0; i < 4; ++i) frames.push_back(test::pattern(f.packed_frame_bytes(), i + 70));
  for (bool raw : {false, true}) {
    Bytes data;
    if (raw) {
      for (const Bytes& fr : frames) append(data, fr);
    } else {
      data = y4m_stream(f, "444", frames);
    }
    std::thread writer([&] {
      const int fd = ::open(fifo.c_str(), O_WRONLY);  // blocks until the reader opens
      if (fd < 0) return;
      write_slowly(fd, data, 1000);
      ::close(fd);
    });
    {
      auto r = raw ? open_video(fifo, RawParams{f.width, f.height, f.pix_fmt, f.bitdepth})
                   : open_video(fifo, std::nullopt);
      EXPECT_EQ(r->info().container, raw ? "yuv" : "y4m");
      EXPECT_FALSE(r->info().frame_count.has_value());
      FrameBuffer fb(f);
      for (const Bytes& fr : frames) {
        const bool got = r->read_frame(fb);
        EXPECT_TRUE(got);
        if (!got) break;
        EXPECT_EQ(frame_bytes_of(fb), fr);
      }
      EXPECT_FALSE(r->read_frame(fb));
    }
    writer.join();
  }
}

}  // namespace
}  // namespace exactvmaf::io
