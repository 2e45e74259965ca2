// float_psnr on the CUDA backend (float_psnr_cuda.cu): the frame's sum of
// squares on the device as an exact integer, the tail on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_psnr/float_psnr_host.hpp"

namespace exactvmaf::float_psnr {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::float_psnr
