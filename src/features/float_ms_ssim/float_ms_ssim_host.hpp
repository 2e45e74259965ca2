// float_ms_ssim on the host (docs/design.md, "The feature template"): the
// run's Config, the output names, the outputs, and the CPU's frame
// computation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/float_ms_ssim/float_ms_ssim_math.hpp"

namespace exactvmaf::float_ms_ssim {

struct Config {
  bool enable_lcs = false, enable_db = false, clip_db = false;
  int w[num_scales] = {}, h[num_scales] = {};  // each scale's plane
  unsigned bpc = 8;
  double max_db = 0.0;  // +inf without clip_db
};

// The options of --feature float_ms_ssim (float_ms_ssim_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Checks the format (an Error naming float_ms_ssim below 176x176), fills the
// format-dependent fields and returns the output names in libvmaf's order
// (float_ms_ssim_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

// One frame's score and per-scale means.
struct FrameScores {
  double msssim = 1.0;
  ssim::Means scale[num_scales];
};

// f.msssim from the five scales' means, left to right (combine), as
// upstream; an Error naming `frame` when the product becomes infinite.
void combine_scales(FrameScores& f, std::uint64_t frame);

// One frame on the CPU; the planes of the five scales are kept between frames.
class CpuFrame {
 public:
  explicit CpuFrame(const Config& c) : c_(c) {}
  FrameScores compute(const PictureView& ref, const PictureView& dist, std::uint64_t frame);

 private:
  void load(const PictureView& pic, std::vector<float>& dst) const;
  const Config& c_;
  std::vector<float> ref_[num_scales], dis_[num_scales];
  ssim::DecimateScratch dec_;
  ssim::SsimRows rows_;
};

// float_ms_ssim (dB with enable_db), then with enable_lcs the l, c, s means
// of scales 0..4 (l_scale0..4, c_scale0..4, s_scale0..4).
void write_outputs(const Config& c, const FrameScores& f, FrameOutput& out);

}  // namespace exactvmaf::float_ms_ssim
