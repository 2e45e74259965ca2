// psnr_hvs on the host (docs/design.md, "The feature template"): the run's
// Config (the feature has no options), the plane scores and the outputs.
#pragma once
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/psnr_hvs/psnr_hvs_math.hpp"

namespace exactvmaf::psnr_hvs {

struct Config {
  unsigned bpc = 8;
  int w[3] = {}, h[3] = {};  // libvmaf's picture planes (chroma w >> 1, h >> 1)
  PlaneTables tables[3] = {};
};

// Checks the format (refuses more than 12 bits and 4:0:0, as upstream),
// fills c and returns the output names in libvmaf's order (psnr_hvs_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

// Plane p's score on the CPU: upstream's float ret after its two divisions.
float cpu_plane_score(const Config& c, const PictureView& ref, const PictureView& dist, unsigned p);

// psnr_hvs_y, _cb, _cr and psnr_hvs from the three plane scores.
void write_outputs(const float score[3], FrameOutput& out);

}  // namespace exactvmaf::psnr_hvs
