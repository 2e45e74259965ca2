// Device discovery for --backend cuda/auto.
#include "backends/cuda/check.cuh"
#include "exactvmaf/cuda.hpp"

namespace exactvmaf {

CudaStatus cuda_status() {
  CudaStatus s;
  s.built = true;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    s.problem = "no usable CUDA device (" + cuda::error_text(e) + ")";
    (void)cudaGetLastError();  // clear the sticky error for later callers
    return s;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    s.devices.push_back({i, p.name, p.major, p.minor, p.totalGlobalMem});
  }
  if (s.devices.empty()) s.problem = "no usable CUDA device";
  return s;
}

}  // namespace exactvmaf
