// A worker's enqueue() for the run's DeviceArith: fn(rmath::NativeF64{}) or
// fn(rmath::Fp32PairArith{}), so one templated launch chain serves both
// (docs/fp64-free.md).
#pragma once
#include "backends/cuda/cuda_feature.hpp"
#include "numeric/f64_policy.hpp"
#include "numeric/fp32pair.hpp"

namespace exactvmaf::cuda {

template <class Fn>
void with_device_arith(DeviceArith arith, Fn&& fn) {
  if (arith == DeviceArith::fp32pair)
    fn(rmath::Fp32PairArith{});
  else
    fn(rmath::NativeF64{});
}

}  // namespace exactvmaf::cuda
