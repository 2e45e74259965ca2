// ciede on the CUDA backend (ciede_cuda.cu). Per pixel the device runs
// ciede_math.hpp with FastMath (or, with --device_fp64 off, no fp64
// instruction: ΔE00 on fp32 pairs first, replayed in Sf64 where they cannot
// decide, Lab in Sf64); a pixel whose function call was undecided is
// left out of the device's exact sum and queued; finish() replays the queued
// pixels with HostMath on the host, adds them to the exact sum, and runs the
// CPU's tail. 8-bit input takes Lab from a device table of all 2^24 colours,
// built by a kernel once per device (undecided entries fixed by the host).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "backends/cuda/cuda_feature.hpp"
#include "features/ciede/ciede_host.hpp"

namespace exactvmaf::ciede {

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c);

// ---- test hooks (tests/backends/ciede_cuda_test.cpp), on the current device --

struct DeviceCheckCounts {
  std::uint64_t undecided = 0;  // samples the device's fast paths left to the host
  // fp64_free: pixels whose ΔE00 started on fp32 pairs, and of them those
  // replayed in Sf64.
  std::uint64_t pair_pixels = 0, sf64_replays = 0;
};

// The device's per-pixel function on n colour pairs (pairs[6 i .. 6 i + 5] =
// ref y u v, dist y u v): values[i], and undecided[i] = 1 where the device
// could not decide (values[i] is then not R's). use_table8: 8-bit colours
// through the device Lab table (as the worker), else Lab per pixel.
// fp64_free: the fp32pair variant's kernels (pairs first, then Sf64Math).
DeviceCheckCounts device_pair_values(unsigned bpc, bool use_table8, const std::uint16_t* pairs, std::size_t n,
                                     float* values, std::uint8_t* undecided, bool fp64_free = false);

// The device's Lab (FastMath) of the colours first .. first + n - 1 of a bit
// depth, colour c = (y << 2b) | (u << b) | v: lab[3 i .. 3 i + 2] = L, a, b.
DeviceCheckCounts device_lab_values(unsigned bpc, std::uint64_t first, std::size_t n, float* lab,
                                    std::uint8_t* undecided, bool fp64_free = false);

// The worker's 8-bit device table after the host fix, copied back:
// lab[3 c .. 3 c + 2] for c = colour_index8(y, u, v). Returns the number of
// entries the host fixed.
std::uint64_t device_lab_table8(float* lab, bool fp64_free = false);

}  // namespace exactvmaf::ciede
