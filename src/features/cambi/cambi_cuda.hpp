// cambi on the CUDA backend (cambi_cuda.cu): the whole per-picture chain on
// the device (preprocessing, mask, the five scales' decimation, mode filter
// and c-values, and each scale's top-k selection and exact sum); the host
// gets back five exact sums per picture (and, with heatmaps_path, the
// c-value maps it must write). finish() runs the CPU's tail.
#pragma once
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/cambi/cambi_host.hpp"

namespace exactvmaf::cambi {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

}  // namespace exactvmaf::cambi
