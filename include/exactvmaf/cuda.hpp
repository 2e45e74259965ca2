// What the CUDA backend can use on this machine.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

struct GpuInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::size_t memory_bytes = 0;
};

struct CudaStatus {
  bool built = false;           // this library was built with the CUDA backend
  std::vector<GpuInfo> devices; // usable devices (empty on error)
  std::string problem;          // why none is usable, one line; empty when some are
};

// Queries the driver once per call; never throws.
CudaStatus cuda_status();

}  // namespace exactvmaf

#pragma GCC visibility pop
