// Integer ADM on the CUDA backend (adm_cuda.cu): the per-scale chain of
// adm_math.hpp on the device, the per-frame tail on the host.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/adm/adm_math.hpp"

namespace exactvmaf::adm {

// What the worker needs from the extractor's options (all fixed per run).
struct CudaParams {
  unsigned w = 0, h = 0, bpc = 8;  // luma picture size, bit depth
  bool debug = false, skip_aim = false, skip_scale0 = false;
  double gain_limit = 100.0, noise_weight = 0.03125, dlm_weight = 0.5, min_val = 0.0;
  ScaleFactors factors[num_scales];  // the CSF factors, computed on the host from the options
};

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const CudaParams& p);

}  // namespace exactvmaf::adm
