// CUDA memory owned one way: CudaBuffer<T, Memory>, freed on destruction,
// moved but never copied, EXACTVMAF_CUDA_CHECK on the allocation (an
// InternalError naming the call). DeviceBuffer<T> is device memory (linear or
// pitched), PinnedBuffer<T> page-locked host memory that a captured graph
// copies into (value-initialised, readable on the host).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "backends/cuda/check.cuh"

namespace exactvmaf::cuda {

struct DeviceMemory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    EXACTVMAF_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { (void)cudaFree(p); }
};

struct PinnedMemory {
  // Portable: usable from every thread's context.
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    EXACTVMAF_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
    return p;
  }
  static void release(void* p) { (void)cudaFreeHost(p); }
};

// The pieces of one float scratch buffer: take(n) gives the offset of the
// next n floats, each piece starting on a 256-byte boundary; floats() is
// what to allocate once every piece is taken.
class ScratchLayout {
 public:
  std::size_t take(std::size_t n) {
    const std::size_t at = floats_;
    floats_ += (n + 63) / 64 * 64;
    return at;
  }
  std::size_t floats() const { return floats_; }

 private:
  std::size_t floats_ = 0;
};

template <class T, class Memory>
class CudaBuffer {
  static constexpr bool host_readable = std::is_same_v<Memory, PinnedMemory>;

 public:
  CudaBuffer() = default;
  // n elements (at least one is allocated, so get() is never null).
  explicit CudaBuffer(std::size_t n) : data_(static_cast<T*>(Memory::allocate(sizeof(T) * (n ? n : 1)))), size_(n) {
    if constexpr (host_readable)
      for (std::size_t i = 0; i < (n ? n : 1); ++i) data_[i] = T{};
  }
  // Device memory of `rows` rows of width_bytes each, every row starting at a
  // multiple of pitch() bytes.
  static CudaBuffer pitched(std::size_t width_bytes, std::size_t rows)
    requires std::is_same_v<Memory, DeviceMemory>
  {
    CudaBuffer b;
    void* p = nullptr;
    EXACTVMAF_CUDA_CHECK(cudaMallocPitch(&p, &b.pitch_, width_bytes ? width_bytes : 1, rows ? rows : 1));
    b.data_ = static_cast<T*>(p);
    b.size_ = b.pitch_ * (rows ? rows : 1) / sizeof(T);
    return b;
  }
  CudaBuffer(CudaBuffer&& o) noexcept { *this = std::move(o); }
  CudaBuffer& operator=(CudaBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      pitch_ = std::exchange(o.pitch_, 0);
    }
    return *this;
  }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  ~CudaBuffer() { reset(); }

  T* get() const { return data_; }
  std::size_t size() const { return size_; }  // elements
  std::size_t bytes() const { return sizeof(T) * size_; }
  std::size_t pitch() const { return pitch_; }  // bytes; 0 unless pitched()
  explicit operator bool() const { return data_ != nullptr; }
  T* operator->() const
    requires host_readable
  {
    return data_;
  }
  T& operator[](std::size_t i) const
    requires host_readable
  {
    return data_[i];
  }

 private:
  void reset() noexcept {
    if (data_) Memory::release(data_);
    data_ = nullptr;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0, pitch_ = 0;
};

template <class T>
using DeviceBuffer = CudaBuffer<T, DeviceMemory>;
template <class T>
using PinnedBuffer = CudaBuffer<T, PinnedMemory>;

}  // namespace exactvmaf::cuda
