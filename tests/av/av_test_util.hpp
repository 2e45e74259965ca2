// Helpers for the compressed-input tests (tests/av): the fixtures in
// tests/fixtures/av, per-frame MD5s in the ffmpeg CLI's framemd5 form, the
// ffmpeg CLI when it is installed (the expectations are then made at run
// time; otherwise the committed .framemd5 files made by
// tools/fixtures/make_fixtures.sh are used), and running the exactvmaf CLI.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include <libavutil/md5.h>
#include <libswscale/swscale.h>
}

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/exactvmaf.hpp"
#include "support/fixtures.hpp"

namespace exactvmaf::test {

inline std::filesystem::path av_fixture(const std::string& name) { return fixtures_dir() / "av" / name; }
inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

inline std::string slurp_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A directory under /tmp for this process, removed at exit.
inline const std::filesystem::path& av_temp_dir() {
  static const struct Dir {
    std::filesystem::path path;
    Dir() {
      std::string tmpl = (std::filesystem::temp_directory_path() / "exactvmaf_av_test_XXXXXX").string();
      if (!::mkdtemp(tmpl.data())) std::abort();
      path = tmpl;
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

inline std::filesystem::path write_temp(const std::string& name, const std::string& bytes) {
  const auto p = av_temp_dir() / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

// The first `fraction` of a fixture's bytes, as a new file (a truncated file).
inline std::filesystem::path truncated_copy(const std::string& fixture, double fraction) {
  const std::string all = slurp_file(av_fixture(fixture));
  return write_temp("trunc_" + std::to_string(static_cast<int>(fraction * 100)) + "_" + fixture,
                    all.substr(0, static_cast<std::size_t>(static_cast<double>(all.size()) * fraction)));
}

// MD5 of one frame's samples packed plane after plane (rawvideo's layout,
// which is what the CLI's framemd5 hashes); `planes` 0 = all.
inline std::string frame_md5(const FrameBuffer& fb, unsigned planes = 0) {
  AVMD5* ctx = av_md5_alloc();
  av_md5_init(ctx);
  const VideoFormat& f = fb.format();
  const unsigned n = planes ? planes : f.planes();
  for (unsigned p = 0; p < n; ++p)
    for (unsigned y = 0; y < f.plane_height(p); ++y)
      av_md5_update(ctx, fb.plane(p) + static_cast<std::ptrdiff_t>(y) * fb.stride(p), fb.row_bytes(p));
  std::uint8_t sum[16];
  av_md5_final(ctx, sum);
  av_free(ctx);
  std::string hex;
  for (const std::uint8_t b : sum) hex += fmt::format("{:02x}", b);
  return hex;
}

// Every frame of `r` as MD5s (`planes` as in frame_md5).
inline std::vector<std::string> reader_md5s(VideoReader& r, unsigned planes = 0) {
  std::vector<std::string> out;
  FrameBuffer fb(r.info().format);
  while (r.read_frame(fb)) out.push_back(frame_md5(fb, planes));
  return out;
}

struct FrameMd5s {
  std::vector<std::string> md5s;
  std::string libswscale;  // "#libswscale X" in a committed file, else ""
};

inline FrameMd5s parse_framemd5(const std::string& text) {
  FrameMd5s r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#libswscale ", 0) == 0) r.libswscale = line.substr(12);
    if (line.empty() || line[0] == '#') continue;
    r.md5s.push_back(line.substr(line.rfind(' ') + 1));
  }
  return r;
}

inline bool have_ffmpeg_cli() {
  static const bool have = std::system("command -v ffmpeg >/dev/null 2>&1") == 0;
  return have;
}

inline std::string this_libswscale() {
  const unsigned v = swscale_version();
  return fmt::format("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

// The expected per-frame MD5s of a fixture: made now by the ffmpeg CLI with
// `args` (the same as make_fixtures.sh), or, without the CLI, the committed
// `<name>.framemd5`. Sets `skip` when neither can be trusted (no CLI and a
// libswscale-dependent expectation made with another libswscale version).
inline std::vector<std::string> expected_md5s(const std::string& name, const std::string& input,
                                              const std::string& args, std::string* skip = nullptr) {
  if (have_ffmpeg_cli()) {
    const auto out = av_temp_dir() / (name + ".runtime.framemd5");
    const std::string cmd =
        fmt::format("ffmpeg -hide_banner -nostdin -loglevel error -y -threads 1 -sws_flags bicubic+accurate_rnd+bitexact "
                    "-filter_threads 1 -i {} {} -f framemd5 {}",
                    quoted(av_fixture(input)), args, quoted(out));
    if (std::system(cmd.c_str()) != 0) return {"ffmpeg failed: " + cmd};
    return parse_framemd5(slurp_file(out)).md5s;
  }
  const FrameMd5s committed = parse_framemd5(slurp_file(av_fixture(name + ".framemd5")));
  if (!committed.libswscale.empty() && committed.libswscale != this_libswscale() && skip)
    *skip = fmt::format("no ffmpeg CLI, and {}.framemd5 was made with libswscale {} (this is {}): scaled output is "
                        "bit-exact within one libswscale version only (docs/input.md)",
                        name, committed.libswscale, this_libswscale());
  return committed.md5s;
}

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs `exactvmaf <args>` (args are shell words).
inline CliResult run_cli(const std::string& args) {
  static int n = 0;
  const auto out = av_temp_dir() / fmt::format("stdout{}.txt", n), err = av_temp_dir() / fmt::format("stderr{}.txt", n);
  ++n;
  const std::string cmd =
      fmt::format("'{}' {} >{} 2>{} </dev/null", EXACTVMAF_CLI, args, quoted(out), quoted(err));
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp_file(out);
  r.err = slurp_file(err);
  return r;
}

inline std::string mask_fps(std::string s) {
  s = std::regex_replace(s, std::regex("\"fps\": [0-9.]+"), "\"fps\": X");
  return std::regex_replace(s, std::regex("fps=\"[0-9.]+\""), "fps=\"X\"");
}

}  // namespace exactvmaf::test
