// float_moment on the host (docs/design.md, "The feature template"): the
// run's Config (the feature has no options) and the frame's moments, which
// the CPU worker and a later CUDA worker's host tail share.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/float_moment/float_moment_math.hpp"

namespace exactvmaf::float_moment {

struct Config {
  unsigned bpc = 8;
  float scaler = 1.0f;
  int w = 0, h = 0;  // the luma plane
};

// Output slots, in libvmaf's order.
enum Slot : unsigned { ref1st = 0, dis1st = 1, ref2nd = 2, dis2nd = 3 };

// Fills c from the format; returns the output names in libvmaf's order
// (float_moment_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

// One picture's first and second moments (float_moment_cpu.cpp).
struct Moments {
  double first = 0, second = 0;
};
Moments picture_moments(const Config& c, const PictureView& pic);

}  // namespace exactvmaf::float_moment
