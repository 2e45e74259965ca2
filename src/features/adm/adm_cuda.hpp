// Integer ADM on the CUDA backend (adm_cuda.cu): the per-scale chain of
// adm_math.hpp on the device, the per-frame tail on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/adm/adm_host.hpp"

namespace exactvmaf::adm {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::adm
