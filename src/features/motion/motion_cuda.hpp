// Integer motion on the CUDA backend (motion_cuda.cu): the same SAD as
// motion_math.hpp's frame_sad, on the device; the score tail on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/motion/motion_host.hpp"

namespace exactvmaf::motion {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::motion
