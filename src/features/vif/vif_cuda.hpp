// Integer VIF on the CUDA backend (vif_cuda.cu): the four scales' filters,
// decimation and per-pixel statistic on the device with vif_math.hpp's
// functions, the per-scale int64 sums reduced there; the per-frame tail on the
// host (write_frame_outputs, shared with the CPU worker).
#pragma once
#include <cstdint>
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "exactvmaf/feature.hpp"
#include "features/vif/vif_math.hpp"

namespace exactvmaf::vif {

struct CudaParams {
  unsigned w = 0, h = 0, bpc = 8;  // luma picture size, bit depth
  bool debug = false, skip_scale0 = false;
  double gain_limit = default_gain_limit;
  const std::uint16_t* log2_table = nullptr;  // host table (log2_table_size entries), copied in setup()
};

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const CudaParams& p);

// The outputs of one frame from its four scales' scores, in the extractor's
// slot order (vif_cpu.cpp; the CPU and CUDA workers both call it).
void write_frame_outputs(const ScaleScore* scores, bool debug, bool skip_scale0, FrameOutput& out);

}  // namespace exactvmaf::vif
