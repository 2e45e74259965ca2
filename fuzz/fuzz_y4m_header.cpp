// libFuzzer target: arbitrary bytes as a y4m stream. Parses the header and
// reads (or skips) up to three frames from memory. The last input byte also
// picks how many bytes each underlying read returns (0 = all at once), so
// the short-read paths of pipes are exercised too.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "exactvmaf/error.hpp"
#include "exactvmaf/frame.hpp"
#include "io/readers.hpp"
#include "io/stream.hpp"
#include "io/warnings.hpp"

namespace {

// Frames larger than this are skipped rather than allocated and read.
constexpr std::size_t kMaxReadFrameBytes = std::size_t{1} << 22;

void check_one_line(const char* message) {
  if (std::strchr(message, '\n') != nullptr || message[0] == '\0') std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  exactvmaf::io::set_warning_handler([](const std::string& m) { check_one_line(m.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace exactvmaf;
  const std::size_t chunk = size > 0 ? data[size - 1] % 8 : 0;
  try {
    auto reader = io::open_y4m_stream(io::InputStream(io::make_memory_source(data, size, chunk), "fuzz.y4m"));
    const VideoFormat& f = reader->info().format;
    if (f.width == 0 || f.height == 0 || f.width > 65536 || f.height > 65536) std::abort();
    if (f.packed_frame_bytes() > kMaxReadFrameBytes) {
      for (int i = 0; i < 3 && reader->skip_frame(); ++i) {
      }
      return 0;
    }
    FrameBuffer frame(f);
    for (int i = 0; i < 3; ++i) {
      const bool more = i == 1 ? reader->skip_frame() : reader->read_frame(frame);
      if (!more) break;
      if (reader->frames_read() != static_cast<std::uint64_t>(i) + 1) std::abort();
    }
  } catch (const Error& e) {
    check_one_line(e.what());
  }
  return 0;
}
