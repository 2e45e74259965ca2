// float_ansnr on the CUDA backend (float_ansnr_cuda.cu): the filtered planes
// and the frame's float sums in R's order on the device, scores() on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_ansnr/float_ansnr_host.hpp"

namespace exactvmaf::float_ansnr {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::float_ansnr
