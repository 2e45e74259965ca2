// Integer VIF on the host (docs/design.md, "The feature template"): the run's
// Config, shared read-only by the CPU and CUDA workers, the fixed-point log2
// table both use, the output names and the per-frame output writer.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/vif/vif_math.hpp"

namespace exactvmaf::vif {

struct Config {
  bool debug = false, skip_scale0 = false;
  double gain_limit = default_gain_limit;
  unsigned w = 0, h = 0, bpc = 8;              // luma picture size, bit depth
  const std::uint16_t* log2_table = nullptr;  // log2_table()
};

// Entry i - 32768 holds round(log2f(i) * 2048) for i = 32768..65535, with R's
// correctly rounded log2f (rmath::cr_log2f); log2_table_size entries, built
// once per process and valid for its life (vif_cpu.cpp). Two zero entries
// follow: the SIMD gathers read 32 bits at an entry's address.
const std::uint16_t* log2_table();

// The options of --feature vif (vif_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Checks the format (Error naming vif), fills the format-dependent fields
// and returns the output names in libvmaf's order (vif_cpu.cpp).
std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt);

// The outputs of one frame from its four scales' scores, in the slots of
// init()'s names (vif_cpu.cpp).
void write_frame_outputs(const ScaleScore* scores, bool debug, bool skip_scale0, FrameOutput& out);

}  // namespace exactvmaf::vif
