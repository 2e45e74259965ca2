// float_moment on the CUDA backend (float_moment_cuda.cu): each picture's
// integer totals on the device, the moments (or, at 2^53, the frame's host
// recomputation) in finish().
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_moment/float_moment_host.hpp"

namespace exactvmaf::float_moment {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::float_moment
