// Device discovery for --backend cuda/auto, and page-locked host memory.
#include <atomic>
#include <string>

#include "backends/cuda/check.cuh"
#include "backends/cuda/runner.hpp"
#include "exactvmaf/cuda.hpp"

namespace exactvmaf {

namespace {
std::atomic<bool> g_driver_started{false};
}  // namespace

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
  (void)cudaGetLastError();
  if (s.devices.empty()) s.problem = "no usable CUDA device";
  return s;
}

namespace cuda {

bool driver_started() { return g_driver_started.load(std::memory_order_relaxed); }

namespace {
// Launching nothing: cudaFuncGetAttributes on it tells whether this build has
// code the device can run (cudaErrorNoKernelImageForDevice otherwise) and
// creates the device's context (exclusive-process mode, out of memory).
__global__ void probe_kernel() {}
}  // namespace

std::string device_problem(int gpu) {
  const CudaStatus s = cuda_status();
  if (s.devices.empty()) return s.problem;
  const GpuInfo* dev = nullptr;
  std::string list;
  for (const auto& d : s.devices) {
    if (d.index == gpu) dev = &d;
    list += (list.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
  }
  if (!dev)
    throw Error("--gpu " + std::to_string(gpu) + ": no such CUDA device (this machine has " +
                std::to_string(s.devices.size()) + " usable: " + list + ")");
  cudaError_t e = cudaSetDevice(gpu);
  cudaFuncAttributes attr{};
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&attr, probe_kernel);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return "GPU " + std::to_string(gpu) + " (" + dev->name + ", compute capability " + std::to_string(dev->cc_major) +
           "." + std::to_string(dev->cc_minor) + ") cannot run this build's kernels (" + error_text(e) + ")";
  }
  g_driver_started.store(true, std::memory_order_relaxed);  // the driver and this device's context
  return {};
}

int fp32_to_fp64_ratio(int gpu) {
  int ratio = 0;
  if (cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, gpu) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return ratio;
}

bool pin_host_memory(void* p, std::size_t bytes, int gpu) {
  // Portable: usable from every thread's context; the device is set so the
  // registration does not wake up a different GPU.
  if (cudaSetDevice(gpu) != cudaSuccess || cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

void unpin_host_memory(void* p) {
  if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace cuda

}  // namespace exactvmaf
