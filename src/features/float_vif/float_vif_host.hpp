// float_vif on the host (docs/design.md, "The feature template"): the run's
// Config (options, prescaler tables, the four scales' filters and plane
// sizes) and the CPU's frame chain, shared by the CPU worker and the tests.
#pragma once
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/common/vif_tools.hpp"
#include "features/float_vif/float_vif_math.hpp"

namespace exactvmaf::float_vif {

struct Config {
  StatParams stat;
  ScoreOptions score;
  bool debug = false;
  unsigned bpc = 8;
  unsigned w = 0, h = 0;  // the luma plane read
  // vif_prescale: the plane is resampled to plane_w[0] x plane_h[0] first
  // when that size differs (upstream copies it otherwise).
  bool prescale = false;
  vif_tools::ScaleMethod method = vif_tools::ScaleMethod::nearest;
  vif_tools::ScaleTables tables;
  vif_tools::Filter filter[num_scales];
  unsigned plane_w[num_scales] = {}, plane_h[num_scales] = {};  // each scale's plane
  std::vector<std::string> names;  // libvmaf's order
};

// Reads the options and checks them against the format (Error naming
// float_vif: bit depth, kernel scale, prescale method, planes too small for
// a scale's filter); fills c and returns the output names.
std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt);

// The frame's outputs in libvmaf's order from its per-scale sums (the CPU's
// and the CUDA worker's tail).
void write_outputs(const Config& c, const ScaleSums& sums, FrameOutput& out);

// The frame's per-scale sums on the CPU; buffers kept between frames.
class CpuFrame {
 public:
  explicit CpuFrame(const Config& c) : c_(c) {}
  ScaleSums compute(const PictureView& ref, const PictureView& dist);

 private:
  const Config& c_;
  std::vector<float> load_ref_, load_dis_;        // the planes as floats
  std::vector<float> ref_[2], dis_[2];            // the current and next scale
  std::vector<float> rows_;                       // vertical passes, padded
  std::vector<float> out_;                        // horizontal passes of one row
};

}  // namespace exactvmaf::float_vif
