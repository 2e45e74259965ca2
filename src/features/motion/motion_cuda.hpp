// Integer motion on the CUDA backend (motion_cuda.cu): the same SAD as
// motion_math.hpp's frame_sad, on the device; the score tail on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"

namespace exactvmaf::motion {

struct CudaParams {
  unsigned w = 0, h = 0, bpc = 8;  // luma picture size, bit depth
  unsigned back = 1;               // the earlier reference: 1 frame back, 2 with the five-frame window
  bool force_zero = false, debug = false;
  double fps_weight = 1.0, max_val = 10000.0;
  unsigned slot_debug = 1;  // output slot of integer_motion (debug)
};

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const CudaParams& p);

}  // namespace exactvmaf::motion
