// float_motion on the CUDA backend (float_motion_cuda.cu): each plane's
// blurred SAD sums on the device, the frame tail on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/float_motion/float_motion_host.hpp"

namespace exactvmaf::float_motion {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker_for(const Config& c, FrameScores& kept);

}  // namespace exactvmaf::float_motion
