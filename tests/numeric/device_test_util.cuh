// Helpers of the CUDA device tests: skip cleanly without a device, check
// CUDA calls, device buffers.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "backends/cuda/device_memory.cuh"

namespace exactvmaf::test {

// True when a CUDA device is usable (prints why not otherwise).
inline bool have_cuda_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky error from cudaGetDeviceCount
    return false;
  }
  return true;
}

#define EXACTVMAF_REQUIRE_CUDA_DEVICE()                                   \
  do {                                                                    \
    if (!::exactvmaf::test::have_cuda_device()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

#define EXACTVMAF_CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr << ": " << cudaGetErrorString(cudaGetLastError())

// A device copy of a host vector (the library's cuda::DeviceBuffer; an
// allocation failure throws, which the test reports).
template <class T>
struct DeviceBuffer {
  cuda::DeviceBuffer<T> mem;
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceBuffer(std::size_t count) : mem(count), ptr(mem.get()), n(count) {}
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (n) cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  std::vector<T> to_host() const {
    std::vector<T> h(n);
    if (n) cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
};

}  // namespace exactvmaf::test
