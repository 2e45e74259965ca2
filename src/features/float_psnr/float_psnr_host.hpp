// float_psnr on the host (docs/design.md, "The feature template"): the run's
// Config, from the format (the feature has no options).
#pragma once
#include <cstdint>

#include "exactvmaf/format.hpp"
#include "features/float_psnr/float_psnr_math.hpp"

namespace exactvmaf::float_psnr {

struct Config {
  Constants k{};
  // The frame's float sum equals the scaled integer SSE (float_psnr_math.hpp).
  bool integer_exact = false;
};

inline Config config_for(const VideoFormat& fmt) {
  return {constants(fmt.bitdepth),
          integer_sum_is_exact(fmt.bitdepth, static_cast<std::uint64_t>(fmt.width) * fmt.height)};
}

}  // namespace exactvmaf::float_psnr
