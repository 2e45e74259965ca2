// The host-to-device copy ceiling the cuda backend works against: frame
// pairs per second that cudaMemcpyAsync moves from pinned host memory, for
// the luma planes of a pair and for whole 8-bit 4:2:0 pairs.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_h2d: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void h2d(benchmark::State& state, unsigned w, unsigned h, bool luma_only) {
  const std::size_t frame = luma_only ? std::size_t{w} * h : std::size_t{w} * h * 3 / 2;
  const std::size_t pair = 2 * frame;
  const int copies = 16;  // pairs per timed batch, rotating through 4 buffers
  void* host = nullptr;
  void* dev = nullptr;
  check(cudaHostAlloc(&host, pair * 4, cudaHostAllocDefault), "cudaHostAlloc");
  check(cudaMalloc(&dev, pair * 4), "cudaMalloc");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (auto _ : state) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < copies; ++i) {
      const std::size_t off = static_cast<std::size_t>(i % 4) * pair;
      check(cudaMemcpyAsync(static_cast<char*>(dev) + off, static_cast<char*>(host) + off, pair,
                            cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync");
    }
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    state.SetIterationTime(ms / 1e3);
  }
  state.counters["pairs_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * copies, benchmark::Counter::kIsRate);
  state.counters["GB_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()) * copies * pair / 1e9,
                                                  benchmark::Counter::kIsRate);
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  check(cudaFree(dev), "cudaFree");
  check(cudaFreeHost(host), "cudaFreeHost");
}

}  // namespace

void register_h2d_benchmarks() {
  struct S {
    const char* name;
    unsigned w, h;
  };
  for (const S s : {S{"576x324", 576, 324}, S{"1920x1080", 1920, 1080}, S{"3840x2160", 3840, 2160}})
    for (bool luma : {true, false})
      benchmark::RegisterBenchmark(
          (std::string("h2d/pinned/") + s.name + (luma ? "/luma_pair" : "/yuv420_pair")).c_str(),
          [=](benchmark::State& st) { h2d(st, s.w, s.h, luma); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.5);
}
