// Helpers for the reader tests: temporary files, y4m streams built in
// memory, warning capture, plane access.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "exactvmaf/frame.hpp"
#include "io/warnings.hpp"

namespace exactvmaf::io::test {

using Bytes = std::vector<std::uint8_t>;

inline Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }
inline void append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }
inline void append(Bytes& b, const std::string& more) { b.insert(b.end(), more.begin(), more.end()); }

// A fresh directory under /tmp, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "exactvmaf_io_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const Bytes& data) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(data.data()),
                                              static_cast<std::streamsize>(data.size()));
    return p;
  }

 private:
  std::filesystem::path path_;
};

// Collects warnings while alive (and restores the previous handler).
class WarningCapture {
 public:
  WarningCapture() {
    previous_ = set_warning_handler([this](const std::string& m) { messages.push_back(m); });
  }
  ~WarningCapture() { set_warning_handler(previous_); }
  std::vector<std::string> messages;

 private:
  WarningHandler previous_;
};

// Plane p of `fb` as a packed vector (8-bit samples).
inline Bytes plane_bytes(const FrameBuffer& fb, unsigned p) {
  Bytes out;
  const auto& f = fb.format();
  for (unsigned y = 0; y < f.plane_height(p); ++y) {
    const std::uint8_t* row = fb.plane(p) + static_cast<std::ptrdiff_t>(y) * fb.stride(p);
    out.insert(out.end(), row, row + fb.row_bytes(p));
  }
  return out;
}

// Deterministic sample bytes.
inline Bytes pattern(std::size_t n, unsigned seed) {
  Bytes b(n);
  std::uint32_t s = seed * 2654435761u + 12345u;
  for (auto& v : b) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<std::uint8_t>(s >> 24);
  }
  return b;
}

}  // namespace exactvmaf::io::test
