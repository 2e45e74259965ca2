// Which reader reads an -r/-d argument (docs/input.md, "Which reader"):
// today's y4m and raw readers for everything they are chosen for by name or
// magic, FFmpeg for the other regular files it recognises by content.
extern "C" {
#include <libavformat/avformat.h>
}

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "av/av_input.hpp"
#include "av/av_library.hpp"
#include "av/av_util.hpp"
#include "exactvmaf/error.hpp"
#include "io/warnings.hpp"

namespace exactvmaf::av {
namespace {

bool ends_with_ci(const std::string& s, const char* tail) {
  const std::size_t n = std::strlen(tail);
  if (s.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    char c = s[s.size() - n + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != tail[i]) return false;
  }
  return true;
}

bool starts_with_y4m_magic(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[10];
  const bool y4m = std::fread(magic, 1, sizeof magic, f) == sizeof magic && std::memcmp(magic, "YUV4MPEG2 ", 10) == 0;
  std::fclose(f);
  return y4m;
}

// libavformat's verdict on the content (and name) of a regular file: the
// demuxer's name when it recognises it with confidence (probe score above
// AVPROBE_SCORE_RETRY, the threshold below which libavformat itself reads
// more before deciding), else empty. Raw formats (rawvideo, y4m) do not count.
std::string probe(const std::string& path) {
  install_log_handler();
  AVIOContext* pb = nullptr;
  if (lib().avio_open(&pb, ("file:" + path).c_str(), AVIO_FLAG_READ) < 0) return {};  // never another protocol
  const AVInputFormat* fmt = nullptr;
  // av_probe_input_buffer2 returns the score (or an error).
  const int score = lib().av_probe_input_buffer2(pb, &fmt, path.c_str(), nullptr, 0, 0);
  lib().avio_closep(&pb);
  if (score <= AVPROBE_SCORE_RETRY || !fmt) return {};
  if (std::strcmp(fmt->name, "rawvideo") == 0 || std::strcmp(fmt->name, "yuv4mpegpipe") == 0) return {};
  return fmt->name;
}

// Read as y4m or raw YUV whatever its content says: "-", a pipe or device,
// a name ending in .y4m or .yuv, y4m content.
bool read_without_ffmpeg(const std::string& path) {
  struct stat st {};
  const bool regular = path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const bool by_name = ends_with_ci(path, ".y4m") || ends_with_ci(path, ".yuv");
  return !regular || by_name || starts_with_y4m_magic(path);
}

}  // namespace

bool may_decode(const std::string& path) { return !read_without_ffmpeg(path); }

std::unique_ptr<VideoReader> open_input(const std::string& path, const io::RawOptions& raw, const ReaderOptions& opts,
                                        bool stream_given) {
  if (read_without_ffmpeg(path)) {
    if (stream_given)
      throw Error(fmt::format("{}: --stream applies to inputs read through FFmpeg, not to y4m or raw YUV", path));
    return io::open_video_with(path, raw);
  }
  // Without FFmpeg's libraries, raw options still read the file as raw YUV.
  if (!raw.any()) load_library_for(path);
  bool decodable = false;
  try {
    decodable = !probe(path).empty();
  } catch (const Error&) {
    if (!raw.any()) throw;
  }
  if (decodable) {
    if (raw.any())
      io::warn(fmt::format("{}: a video file FFmpeg reads: ignoring -w/-h/-p/-b for it", path));
    return open_av(path, opts);
  }
  if (raw.any()) {
    if (stream_given)
      throw Error(fmt::format("{}: --stream applies to inputs read through FFmpeg, not to raw YUV", path));
    return io::open_video_with(path, raw);
  }
  // Neither: FFmpeg's own message says most (an unknown format, a broken header).
  try {
    return open_av(path, opts);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; raw YUV input needs -w, -h, -p and -b");
  }
}

}  // namespace exactvmaf::av
