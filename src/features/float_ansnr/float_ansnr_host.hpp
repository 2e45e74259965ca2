// float_ansnr on the host (docs/design.md, "The feature template"): the
// run's Config (the feature has no options) and the frame's float sums.
#pragma once
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/float_ansnr/float_ansnr_math.hpp"

namespace exactvmaf::float_ansnr {

struct Config {
  Constants k{};
  int w = 0, h = 0;  // the luma plane
  float ref_taps[kRefWidth * kRefWidth] = {};
  float dis_taps[kDisWidth * kDisWidth] = {};
};

// Checks the format (bit depth; a luma plane of at least 3x3, below which
// upstream's mirror reads outside the plane), fills c and returns the output
// names in libvmaf's order (float_ansnr_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

// The frame's float signal and noise sums on the CPU; the buffers are kept
// between frames (one per worker).
class CpuFrame {
 public:
  explicit CpuFrame(const Config& c) : c_(c) {}
  RowSums compute(const PictureView& ref, const PictureView& dist);

 private:
  void load(const PictureView& pic, std::vector<float>& dst) const;
  const Config& c_;
  std::vector<float> ref_, dis_, ref_row_, dis_row_;
};

}  // namespace exactvmaf::float_ansnr
