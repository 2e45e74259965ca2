// Float ADM on the CUDA backend (float_adm_cuda.cu): the per-scale chain of
// float_adm_math.hpp on the device, the per-scale powf tails on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_adm/float_adm_host.hpp"

namespace exactvmaf::float_adm {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::float_adm
