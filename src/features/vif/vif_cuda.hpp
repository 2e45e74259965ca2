// Integer VIF on the CUDA backend (vif_cuda.cu): the four scales' filters,
// decimation and per-pixel statistic on the device with vif_math.hpp's
// functions, the per-scale int64 sums reduced there; the per-frame tail on the
// host (vif_host.hpp's write_frame_outputs, shared with the CPU worker).
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/vif/vif_host.hpp"

namespace exactvmaf::vif {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::vif
