// psnr on the host (docs/design.md, "The feature template"): the run's
// Config, read from the options and the format once, and the output names.
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"

namespace exactvmaf::psnr {

struct Config {
  bool enable_chroma = true, enable_mse = false, enable_apsnr = false, reduced_hbd_peak = false;
  double min_sse = 0.0;
  unsigned planes = 3;
  unsigned bpc = 8;
  std::uint32_t peak = 255;
  std::uint32_t peak_sq = 65025;
  std::array<double, 3> psnr_max{};
  std::array<unsigned, 3> slot_psnr{}, slot_mse{};
};

// apsnr's whole-clip sums, shared by the extractor's CPU and CUDA workers
// (integers: the same in any frame order).
class ApsnrSums {
 public:
  void add(unsigned p, std::uint64_t sse, std::uint64_t pixels) {
    std::lock_guard lock(mutex_);
    sse_[p] += sse;
    pixels_[p] += pixels;
  }
  std::uint64_t sse(unsigned p) const { return sse_[p]; }
  std::uint64_t pixels(unsigned p) const { return pixels_[p]; }

 private:
  std::mutex mutex_;
  std::array<std::uint64_t, 3> sse_{}, pixels_{};
};

// One frame's outputs from the SSE of each scored plane (the CPU's and the
// CUDA worker's tail); adds to `sums` when enable_apsnr.
void write_frame(const Config& c, const std::uint64_t sse[3], const unsigned w[3], const unsigned h[3],
                 ApsnrSums& sums, FrameOutput& out);

// The options of --feature psnr (psnr_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Fills the format-dependent fields and the output slots; returns the output
// names in libvmaf's order (psnr_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

}  // namespace exactvmaf::psnr
