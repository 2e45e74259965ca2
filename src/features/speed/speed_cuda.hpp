// SpEED on the CUDA backend (speed_cuda.cu): the whole per-frame chain on the
// device, only the frame's scores come back.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/speed/speed_host.hpp"

namespace exactvmaf::speed {

// `warnings` is the extractor's (shared with its CPU workers).
std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c, std::shared_ptr<Warnings> warnings);

}  // namespace exactvmaf::speed
