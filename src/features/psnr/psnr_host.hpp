// psnr on the host (docs/design.md, "The feature template"): the run's
// Config, read from the options and the format once, and the output names.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"

namespace exactvmaf::psnr {

struct Config {
  bool enable_chroma = true, enable_mse = false, enable_apsnr = false, reduced_hbd_peak = false;
  double min_sse = 0.0;
  unsigned planes = 3;
  unsigned bpc = 8;
  std::uint32_t peak = 255;
  std::uint32_t peak_sq = 65025;
  std::array<double, 3> psnr_max{};
  std::array<unsigned, 3> slot_psnr{}, slot_mse{};
};

// The options of --feature psnr (psnr_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Fills the format-dependent fields and the output slots; returns the output
// names in libvmaf's order (psnr_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

}  // namespace exactvmaf::psnr
