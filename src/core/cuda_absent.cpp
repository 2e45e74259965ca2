// cuda_status() for builds without the CUDA backend.
#include "exactvmaf/cuda.hpp"

namespace exactvmaf {
#if !defined(EXACTVMAF_HAVE_CUDA)
CudaStatus cuda_status() {
  CudaStatus s;
  s.problem = "this build of exactvmaf has no CUDA backend (configure with nvcc present or -DEXACTVMAF_CUDA=ON)";
  return s;
}
#endif
}  // namespace exactvmaf
