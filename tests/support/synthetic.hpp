// A VideoReader that makes frames in memory: frame i's samples are a
// function of (i, plane, x, y), so tests know every input exactly.
#pragma once
#include <cstring>
#include <functional>
#include <set>

#include "exactvmaf/exactvmaf.hpp"

namespace exactvmaf::test {

class SyntheticReader final : public VideoReader {
 public:
  using SampleFn = std::function<unsigned(std::uint64_t frame, unsigned plane, unsigned x, unsigned y)>;
  SyntheticReader(std::string name, VideoFormat fmt, std::uint64_t frames, SampleFn fn, bool count_known = true)
      : name_(std::move(name)), frames_(frames), fn_(std::move(fn)) {
    info_.format = fmt;
    info_.container = "synthetic";
    if (count_known) info_.frame_count = frames;
  }
  const VideoInfo& info() const override { return info_; }
  const std::string& path() const override { return name_; }
  bool read_frame(FrameBuffer& dst) override {
    if (next_ >= frames_) return false;
    buffers_seen.insert(&dst);
    fill(next_, dst);
    ++next_;
    return true;
  }
  // Random access when asked for (the parallel-reader path of the pipeline).
  bool random_access() const override { return random_access_; }
  void read_frame_at(std::uint64_t index, FrameBuffer& dst) const override {
    if (index == fail_at) throw Error(name_ + ": frame " + std::to_string(index) + " is broken");
    fill(index, dst);
  }
  void set_random_access(bool on) { random_access_ = on; }
  std::uint64_t fail_at = ~std::uint64_t{0};

 private:
  void fill(std::uint64_t frame, FrameBuffer& dst) const {
    const auto& f = info_.format;
    for (unsigned p = 0; p < f.planes(); ++p)
      for (unsigned y = 0; y < f.plane_height(p); ++y) {
        std::uint8_t* row = dst.plane(p) + static_cast<std::ptrdiff_t>(y) * dst.stride(p);
        for (unsigned x = 0; x < f.plane_width(p); ++x) {
          const unsigned v = fn_(frame, p, x, y);
          if (f.bitdepth == 8) {
            row[x] = static_cast<std::uint8_t>(v);
          } else {
            const auto s = static_cast<std::uint16_t>(v);
            std::memcpy(row + 2 * x, &s, 2);
          }
        }
      }
  }

 public:
  bool skip_frame() override {
    if (next_ >= frames_) return false;
    ++next_;
    return true;
  }
  std::uint64_t frames_read() const override { return next_; }

  std::set<const FrameBuffer*> buffers_seen;

 private:
  std::string name_;
  VideoInfo info_;
  std::uint64_t frames_;
  std::uint64_t next_ = 0;
  SampleFn fn_;
  bool random_access_ = false;
};

}  // namespace exactvmaf::test
