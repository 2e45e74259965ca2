// float_motion on the host (docs/design.md, "The feature template"): the
// run's Config, the per-frame scores the extractor keeps for motion2 and
// motion3 at flush, and the frame tail the CPU and CUDA workers share.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/common/vif_tools.hpp"
#include "features/float_motion/float_motion_math.hpp"

namespace exactvmaf::float_motion {

struct Plane {
  unsigned index = 0;  // picture plane
  int w = 0, h = 0;
  int half_w = 0, half_h = 0;  // motion_add_scale1's size
  vif_tools::ScaleTables half;
};

struct Config {
  bool debug = true, force_zero = false, add_scale1 = false, add_uv = false;
  TemporalOptions temporal;
  vif_tools::Filter blur;
  unsigned bpc = 8;
  std::vector<Plane> planes;       // luma, then U and V with motion_add_uv
  std::vector<std::string> names;  // motion2, [motion], motion3 (force_zero: motion2, motion3, [motion])
};

// Reads and checks the options against the format (Error naming
// float_motion); fills c, names included.
void init(Config& c, const OptionValues& o, const VideoFormat& fmt);

// Every frame's score (the planes' compute_motion results added in double),
// shared by a run's workers.
struct FrameScores {
  std::mutex mutex;
  std::vector<double> scores;
  std::vector<char> have;
};

// A frame's outputs from its score (ignored at frame 0 and with
// motion_force_zero), and the score kept for flush.
void finish_frame(const Config& c, std::uint64_t index, double score, FrameOutput& out, FrameScores& kept);

}  // namespace exactvmaf::float_motion
