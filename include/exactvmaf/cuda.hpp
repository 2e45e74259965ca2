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

// Page-locked frame storage outlives its frame buffer: up to 1 GiB of it is
// kept for the next page-locked buffer of the same size (locking costs
// milliseconds per 4K frame, and every run makes dozens). This unlocks and
// frees what is kept now, and returns how many buffers' storage it freed.
std::size_t release_pinned_frame_memory();

}  // namespace exactvmaf

#pragma GCC visibility pop
