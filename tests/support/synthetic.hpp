// A VideoReader that makes frames in memory: frame i's samples are a
// function of (i, plane, x, y), so tests know every input exactly.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

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

// A 64-bit integer hash (MurmurHash3's fmix64 finaliser), low 32 bits: the
// noise of the synthetic frames, reproducible from (frame, plane, x, y).
inline std::uint32_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}

// Reference and distorted samples of one content kind at bit depth maxv
// (2^bpc - 1), for the wavelet and VIF tests (adm, float_adm, vif):
// kind 0: smooth ramps plus noise against a blurred, noisier copy;
// 1: full-range noise against its inverse (negative products and covariances);
// 2: 0/max extremes with a quarter flipped (the largest coefficients and sums);
// 3: near-flat frames (coefficients near zero);
// 4: the distorted frame a gained copy of the reference (enhancement gain > 1).
struct RampNoiseContent {
  unsigned maxv, width;
  int kind;
  unsigned ref(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const std::uint32_t n = mix((f << 40) ^ (std::uint64_t{p} << 36) ^ (std::uint64_t{y} << 18) ^ x);
    if (kind == 2) return (n & 1) ? maxv : 0u;
    if (kind == 1) return n & maxv;
    if (kind == 3) return maxv / 2 + (n % 3);
    return static_cast<unsigned>(((x * 7 + y * 13 + f * 29) * (maxv / 255) + (n & (maxv >> 3))) & maxv);
  }
  unsigned dist(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const unsigned v = ref(f, p, x, y);
    if (kind == 1) return maxv - v;
    if (kind == 2) return (mix(x * 131 + y + f) & 3) == 0 ? maxv - v : v;
    if (kind == 3) return v + (mix(x + 977 * y + f) % 5 == 0 ? 1u : 0u);
    if (kind == 4) {
      const unsigned mid = (maxv + 1) / 2;
      const long long g = static_cast<long long>(mid) + (static_cast<long long>(v) - mid) * 3 / 2;
      return static_cast<unsigned>(std::clamp<long long>(g, 0, maxv));
    }
    const std::uint32_t n = mix((f << 41) ^ (std::uint64_t{y} << 20) ^ x ^ 0x5bd1e995);
    const unsigned blur = (v + ref(f, p, x + 1 < width ? x + 1 : x, y)) / 2;
    const unsigned noisy = blur + (n % (maxv / 16 + 1));
    return noisy > maxv ? maxv : noisy;
  }
};

// Runs `features` on `frames` frames of a content (anything with ref() and
// dist() of (frame, plane, x, y)).
template <class Content>
RunResult run_synthetic_pair(const VideoFormat& fmt, const Content& c, std::uint64_t frames,
                             const std::vector<std::string>& features, const RunOptions& options) {
  SyntheticReader ref("ref", fmt, frames, [c](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return c.ref(f, p, x, y);
  });
  SyntheticReader dist("dist", fmt, frames, [c](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return c.dist(f, p, x, y);
  });
  std::vector<FeatureRequest> req;
  for (const auto& f : features) req.push_back(parse_feature_request(f));
  return run(ref, dist, std::move(req), options);
}

}  // namespace exactvmaf::test
