// float_ssim on the CUDA backend (float_ssim_cuda.cu): the decimation, the
// windows, the per-pixel terms and R's four double sums on the device, in
// either device variant; the means and outputs on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_ssim/float_ssim_host.hpp"

namespace exactvmaf::float_ssim {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::float_ssim
