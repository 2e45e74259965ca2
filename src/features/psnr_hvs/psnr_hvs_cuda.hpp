// psnr_hvs on the CUDA backend (psnr_hvs_cuda.cu): the blocks' terms and the
// planes' float sums in R's order on the device, the scores on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/psnr_hvs/psnr_hvs_host.hpp"

namespace exactvmaf::psnr_hvs {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::psnr_hvs
