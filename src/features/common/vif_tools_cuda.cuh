// vif_tools' prescaler tables on the device: the per-column and per-row
// positions or lanczos4 weights computed once per run on the host with R
// (ScaleTables), copied at setup so kernels can call scaled_sample.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "backends/cuda/check.cuh"
#include "backends/cuda/cuda_feature.hpp"
#include "backends/cuda/device_memory.cuh"
#include "features/common/vif_tools.hpp"

namespace exactvmaf::vif_tools {

class DeviceScaleTables {
 public:
  // Allocates and copies (setup only: the source is pageable, so the caller
  // synchronises the stream before the host tables may change).
  void upload(const ScaleTables& t, cuda::Stream stream) {
    upload(t.lanczos_cols, t.lanczos_rows, t.coord_cols, t.coord_rows, stream);
  }
  void upload(const std::vector<Lanczos4Axis>& lanczos_cols, const std::vector<Lanczos4Axis>& lanczos_rows,
              const std::vector<float>& coord_cols, const std::vector<float>& coord_rows, cuda::Stream stream) {
    const std::size_t bytes = sizeof(Lanczos4Axis) * (lanczos_cols.size() + lanczos_rows.size()) +
                              sizeof(float) * (coord_cols.size() + coord_rows.size());
    x_ = {};
    y_ = {};
    if (!bytes) return;
    bytes_ = cuda::DeviceBuffer<std::uint8_t>(bytes);
    std::uint8_t* at = bytes_.get();
    auto put = [&](const auto& v, auto*& dst) {
      using E = typename std::decay_t<decltype(v)>::value_type;
      dst = v.empty() ? nullptr : reinterpret_cast<E*>(at);
      if (!v.empty())
        EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(at, v.data(), v.size() * sizeof(E), cudaMemcpyHostToDevice, stream));
      at += v.size() * sizeof(E);
    };
    const Lanczos4Axis *lx = nullptr, *ly = nullptr;
    const float *cx = nullptr, *cy = nullptr;
    put(lanczos_cols, lx);  // Lanczos4Axis first: its alignment
    put(lanczos_rows, ly);
    put(coord_cols, cx);
    put(coord_rows, cy);
    x_ = {cx, lx};
    y_ = {cy, ly};
  }
  ScaleAxis x() const { return x_; }
  ScaleAxis y() const { return y_; }

 private:
  cuda::DeviceBuffer<std::uint8_t> bytes_;
  ScaleAxis x_, y_;
};

}  // namespace exactvmaf::vif_tools
