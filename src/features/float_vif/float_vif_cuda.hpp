// float_vif on the CUDA backend (float_vif_cuda.cu): the four scales' float
// sums on the device, the double tail on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_vif/float_vif_host.hpp"

namespace exactvmaf::float_vif {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::float_vif
