// psnr on the CUDA backend (psnr_cuda.cu): the planes' integer SSE on the
// device, the tail (psnr_math.hpp) on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/psnr/psnr_host.hpp"

namespace exactvmaf::psnr {

// `sums` is the extractor's (shared with its CPU workers).
std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c, std::shared_ptr<ApsnrSums> sums);

}  // namespace exactvmaf::psnr
