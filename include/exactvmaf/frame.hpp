// Owned, aligned frame storage, reused through a bounded pool so memory stays
// flat for any clip length.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "exactvmaf/format.hpp"

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

inline constexpr std::size_t kFrameAlignment = 64;

// Where a buffer's memory lives: plain (pageable) host memory, or memory
// page-locked for asynchronous copies to CUDA device `gpu` (the cuda backend's
// readers then write straight into memory the device copies from). Pinning
// that the driver refuses leaves the buffer pageable: same results, slower.
struct HostMemory {
  bool cuda_pinned = false;
  int gpu = 0;
};

class FrameBuffer {
 public:
  explicit FrameBuffer(const VideoFormat& fmt, HostMemory memory = {});
  ~FrameBuffer();
  FrameBuffer(const FrameBuffer&) = delete;
  FrameBuffer& operator=(const FrameBuffer&) = delete;

  const VideoFormat& format() const { return format_; }
  std::uint8_t* plane(unsigned p) { return planes_[p]; }
  const std::uint8_t* plane(unsigned p) const { return planes_[p]; }
  std::ptrdiff_t stride(unsigned p) const { return stride_[p]; }
  // Bytes of the samples of one row of plane p (no padding).
  std::size_t row_bytes(unsigned p) const {
    return static_cast<std::size_t>(format_.plane_width(p)) * format_.bytes_per_sample();
  }
  PictureView view() const;
  // Whether the storage is page-locked for CUDA.
  bool pinned() const { return pinned_; }
  // Page-locks the storage for `memory` if it is not yet (a buffer made
  // pageable and wanted by the device later); the samples are kept. One
  // thread at a time; other threads may read and write the samples meanwhile.
  void pin(HostMemory memory);
  // The frame's presentation time in seconds, when its reader knows it
  // (compressed input); used only to check how frames are paired.
  std::optional<double> timestamp() const { return timestamp_; }
  void set_timestamp(std::optional<double> seconds) { timestamp_ = seconds; }

  // A frame decoded on a GPU (--hwdec cuda) lives in device planes that the
  // buffer keeps (`storage` owns them) and reuses for its next frames.
  // set_on_device(true) marks the current frame as being there; a reader that
  // writes host samples calls set_on_device(false).
  void attach_device_planes(std::shared_ptr<void> storage, const DevicePlanes& planes);
  const DevicePlanes* device_planes() const { return device_storage_ ? &device_ : nullptr; }
  void set_on_device(bool on_device) { on_device_ = on_device && device_storage_; }
  bool on_device() const { return on_device_; }

 private:
  struct AlignedFree {
    void operator()(std::uint8_t* p) const;
  };
  VideoFormat format_;
  std::unique_ptr<std::uint8_t, AlignedFree> storage_;
  std::size_t bytes_ = 0;
  std::uint8_t* planes_[3] = {nullptr, nullptr, nullptr};
  std::ptrdiff_t stride_[3] = {0, 0, 0};
  bool pinned_ = false;
  std::optional<double> timestamp_;
  std::shared_ptr<void> device_storage_;
  DevicePlanes device_;
  bool on_device_ = false;
};

// At most `count` FrameBuffers, made on first need. acquire() blocks until one is free; the
// returned shared_ptr gives the buffer back when its last holder lets go.
class FramePool : public std::enable_shared_from_this<FramePool> {
 public:
  static std::shared_ptr<FramePool> create(const VideoFormat& fmt, std::size_t count, HostMemory memory = {});
  std::shared_ptr<FrameBuffer> acquire();
  // Returns nullptr instead of blocking once cancel() was called.
  void cancel();
  std::size_t capacity() const { return capacity_; }
  // From now on buffers live in `memory`, at most `capacity` of them: those
  // that exist are page-locked in place (while readers and workers go on
  // using them), those beyond the capacity are freed as they come back. A
  // run that began on CPU threads calls this once the CUDA device is ready.
  void use_memory(HostMemory memory, std::size_t capacity);

 private:
  FramePool() = default;
  void give_back(FrameBuffer* fb);
  void drop_free_beyond_capacity(std::vector<std::unique_ptr<FrameBuffer>>& dropped);
  std::mutex mutex_;
  std::condition_variable cv_;
  VideoFormat format_;
  HostMemory memory_;
  std::size_t capacity_ = 0;
  bool pinning_ = false;  // use_memory() is pinning: no buffer is freed
  std::vector<std::unique_ptr<FrameBuffer>> all_;
  std::vector<FrameBuffer*> free_;
  bool cancelled_ = false;
};

}  // namespace exactvmaf

#pragma GCC visibility pop
