// Stand-ins for the CUDA backend's entry points in builds without it.
#include "backends/cuda/runner.hpp"
#include "exactvmaf/cuda.hpp"
#include "exactvmaf/error.hpp"

namespace exactvmaf {
#if !defined(EXACTVMAF_HAVE_CUDA)
CudaStatus cuda_status() {
  CudaStatus s;
  s.problem = "this build of exactvmaf has no CUDA backend (configure with nvcc present or -DEXACTVMAF_CUDA=ON)";
  return s;
}

namespace cuda {
bool driver_started() { return true; }  // nothing to start
bool pin_host_memory(void*, std::size_t, int) { return false; }
void unpin_host_memory(void*) {}
std::string device_problem(int) { return cuda_status().problem; }
int fp32_to_fp64_ratio(int) { return 0; }
std::unique_ptr<FrameRunner> make_frame_runner(const RunnerOptions&, const std::vector<RunnerFeature>&) {
  throw Error(cuda_status().problem);
}
}  // namespace cuda
#endif
}  // namespace exactvmaf
