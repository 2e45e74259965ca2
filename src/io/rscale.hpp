// The R scaler (docs/input.md, "Scaling"): planar YUV scaling whose every
// output bit is defined by integer arithmetic (io/rscale_math.hpp), so that a
// CPU and a CUDA implementation agree. It reproduces libswscale's output
// (FFmpeg 5.1 / libswscale 6.7, as av::make_sws sets it up: SWS_BITEXACT |
// SWS_ACCURATE_RND, default parameters, FFmpeg's scale-filter chroma
// positions, one thread, on x86) byte for byte, for bilinear, bicubic and
// lanczos, 4:2:0 / 4:2:2 / 4:4:4 of 8, 10 or 12 bits, same format in and out.
// Anything else is refused (Error) rather than scaled differently.
#pragma once
#include <cstdint>
#include <vector>

#include "exactvmaf/format.hpp"
#include "exactvmaf/frame.hpp"

namespace exactvmaf::io {

enum class RScaleAlgorithm { bilinear, bicubic, lanczos };

// One direction of one plane: output sample i reads source samples
// pos[i] .. pos[i] + count[i] - 1 with coef[i * size .. i * size + count[i] - 1].
// `size` is libswscale's (aligned) filter size; coefficients past count[i]
// (past the source's end) are zero and not stored apart.
struct RScaleFilter {
  int src_size = 0;
  int dst_size = 0;
  int size = 0;
  std::vector<std::int32_t> pos;
  std::vector<std::int32_t> count;
  std::vector<std::int16_t> coef;
};

// libswscale's filter construction (initFilter) for one direction: `inc` is
// its 16.16 step, `one` the normalisation (1 << 14 horizontally, 1 << 12
// vertically), `align` the filter-size alignment (x86: 4 horizontally, 2
// vertically), `src_pos`/`dst_pos` the sample positions in 1/256 (128 here).
// Host only; throws Error where libswscale would not build this filter.
RScaleFilter rscale_build_filter(RScaleAlgorithm algorithm, int src_size, int dst_size, std::int64_t inc,
                                 int align, int one, int src_pos, int dst_pos);

struct RScalePlane {
  RScaleFilter h, v;
};

class RScalePlan {
 public:
  // Scales frames of `src` to dst_width x dst_height, same pixel format and
  // depth. Throws Error for an unsupported case.
  RScalePlan(const VideoFormat& src, unsigned dst_width, unsigned dst_height, RScaleAlgorithm algorithm);

  const VideoFormat& src_format() const { return src_; }
  const VideoFormat& dst_format() const { return dst_; }
  RScaleAlgorithm algorithm() const { return algorithm_; }
  const RScalePlane& plane(unsigned p) const { return planes_[p]; }

  // The CPU implementation: `in` (host samples, src_format()) into `out`
  // (dst_format()).
  void scale(const PictureView& in, FrameBuffer& out) const;

 private:
  VideoFormat src_, dst_;
  RScaleAlgorithm algorithm_;
  RScalePlane planes_[3];
};

}  // namespace exactvmaf::io
