// Every CUDA call is checked; a failure becomes one line naming the call.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "exactvmaf/error.hpp"

namespace exactvmaf::cuda {

inline std::string error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

#define EXACTVMAF_CUDA_CHECK(call)                                                         \
  do {                                                                                     \
    const cudaError_t exactvmaf_cuda_err_ = (call);                                        \
    if (exactvmaf_cuda_err_ != cudaSuccess)                                                \
      throw ::exactvmaf::InternalError(std::string("CUDA: ") + #call + " failed: " +       \
                                       ::exactvmaf::cuda::error_text(exactvmaf_cuda_err_)); \
  } while (0)

}  // namespace exactvmaf::cuda
