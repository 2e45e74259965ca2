// float_ms_ssim on the CUDA backend (float_ms_ssim_cuda.cu): the four
// low-pass decimations, each scale's windows, per-pixel terms and R's double
// sums on the device, in either device variant; the means, the product over
// the scales (combine_scales) and the outputs on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_ms_ssim/float_ms_ssim_host.hpp"

namespace exactvmaf::float_ms_ssim {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::float_ms_ssim
