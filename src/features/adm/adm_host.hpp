// Integer ADM on the host (docs/design.md, "The feature template"): the run's
// Config, read from the options and the format once and shared read-only by
// the CPU and CUDA workers, and the output names. The per-frame tails are in
// adm_math.hpp; the outputs are written by common/adm_common.hpp.
#pragma once
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/adm/adm_math.hpp"

namespace exactvmaf::adm {

struct Config {
  bool debug = false, skip_aim = false, skip_scale0 = false;
  double gain_limit = 100.0, noise_weight = 0.03125, dlm_weight = 0.5, min_val = 0.0;
  CsfOptions csf;
  ScaleFactors factors[num_scales];  // from csf, on the host
  unsigned w = 0, h = 0, bpc = 8;    // luma picture size, bit depth
};

// The options of --feature adm (adm_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Checks the format and the options against each other (Error naming adm),
// fills the format-dependent fields and returns the output names in
// libvmaf's order (adm_cpu.cpp).
std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt);

}  // namespace exactvmaf::adm
