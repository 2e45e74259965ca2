// float_ssim on the host (docs/design.md, "The feature template"): the run's
// Config, the output names, the outputs, and the CPU's frame computation.
#pragma once
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/float_ssim/float_ssim_math.hpp"

namespace exactvmaf::float_ssim {

struct Config {
  bool enable_lcs = false, enable_db = false, clip_db = false;
  int scale_option = 0;  // the option: 0 = automatic
  int scale = 1;         // the factor used (auto_scale or the option)
  int w = 0, h = 0;      // the luma plane
  int dw = 0, dh = 0;    // after the decimation (w, h when scale is 1)
  unsigned bpc = 8;
  double max_db = 0.0;   // +inf without clip_db
};

// The options of --feature float_ssim (float_ssim_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Checks the format (an Error naming float_ssim when the decimated plane is
// smaller than the window), fills the format-dependent fields and returns
// the output names in libvmaf's order (float_ssim_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

// One frame's SSIM means on the CPU; the buffers are kept between frames.
class CpuFrame {
 public:
  explicit CpuFrame(const Config& c) : c_(c) {}
  ssim::Means compute(const PictureView& ref, const PictureView& dist);

 private:
  void load(const PictureView& pic, std::vector<float>& dst) const;
  const Config& c_;
  std::vector<float> ref_, dis_, ref_dec_, dis_dec_;
  ssim::DecimateScratch dec_;
  ssim::SsimRows rows_;
};

// float_ssim (dB with enable_db), then float_ssim_l, _c, _s with enable_lcs.
void write_outputs(const Config& c, const ssim::Means& m, FrameOutput& out);

}  // namespace exactvmaf::float_ssim
