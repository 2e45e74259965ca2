// Integer motion on the host (docs/design.md, "The feature template"): the
// run's Config, shared read-only by the CPU and CUDA workers, the output
// names and the per-frame tail both workers end with.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/motion/motion_math.hpp"

namespace exactvmaf::motion {

struct Config {
  bool force_zero = false, debug = false;
  double fps_weight = 1.0;
  TemporalOptions temporal;
  unsigned w = 0, h = 0, bpc = 8;  // luma picture size, bit depth
  std::vector<std::string> names;  // sad, [debug], motion2, motion3
  // The earlier reference frame a score compares with: 1 frame back, 2 with
  // the five-frame window.
  unsigned back() const { return first_scored_frame(temporal.five_frame_window); }
};

// Output slot of integer_motion (with debug).
inline constexpr unsigned slot_debug = 1;

// The options of --feature motion (motion_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Checks the format (Error naming motion), fills the format-dependent fields
// and c.names (libvmaf's order), and returns the names (motion_cpu.cpp).
std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt);

// Frame `index`'s outputs from its SAD (frames before back() score 0).
inline void write_frame_outputs(const Config& c, std::uint64_t index, std::uint64_t sad, FrameOutput& out) {
  const double score = c.force_zero || index < c.back() ? 0. : sad_score(sad, c.w, c.h, c.fps_weight, c.temporal.max_val);
  out.set(0, score);
  if (c.debug) out.set(slot_debug, score);
}

}  // namespace exactvmaf::motion
