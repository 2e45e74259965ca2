#include "exactvmaf/frame.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>

#include "backends/cuda/runner.hpp"
#include "exactvmaf/cuda.hpp"
#include "exactvmaf/error.hpp"

namespace exactvmaf {

namespace {
std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

// Page-locked frame storage kept when its FrameBuffer goes, for the next
// page-locked buffer of the same size. Locking a 4K frame costs milliseconds
// (its pages are faulted in, then registered with the driver, under the
// driver's lock) and a run makes dozens of buffers, so without this every
// run of a process (--batch, a libvmaf context per file, the bench) pays it
// again. Registrations are portable (every GPU), so only the size matters.
// The cache is never destroyed: at exit the driver may already be gone.
class PinnedStorageCache {
 public:
  static PinnedStorageCache& get() {
    static auto* const cache = new PinnedStorageCache;
    return *cache;
  }
  void* take(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    for (auto it = kept_.rbegin(); it != kept_.rend(); ++it)
      if (it->bytes == bytes) {
        void* mem = it->mem;
        held_ -= bytes;
        kept_.erase(std::next(it).base());
        return mem;
      }
    return nullptr;
  }
  // False when the cache is full: the caller unlocks and frees.
  bool keep(void* mem, std::size_t bytes) {
    std::lock_guard lock(mutex_);
    if (held_ + bytes > kMaxBytes) return false;
    kept_.push_back({mem, bytes});
    held_ += bytes;
    return true;
  }
  std::size_t release() {
    std::vector<Kept> all;
    {
      std::lock_guard lock(mutex_);
      all.swap(kept_);
      held_ = 0;
    }
    for (const Kept& k : all) {
      cuda::unpin_host_memory(k.mem);
      std::free(k.mem);
    }
    return all.size();
  }

 private:
  // A 4K 4:2:0 16-bit run with 16 reader threads holds about 0.8 GB of frames.
  static constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
  struct Kept {
    void* mem;
    std::size_t bytes;
  };
  std::mutex mutex_;
  std::vector<Kept> kept_;
  std::size_t held_ = 0;
};
}  // namespace

std::size_t release_pinned_frame_memory() { return PinnedStorageCache::get().release(); }

void FrameBuffer::AlignedFree::operator()(std::uint8_t* p) const { std::free(p); }

FrameBuffer::FrameBuffer(const VideoFormat& fmt, HostMemory memory) : format_(fmt) {
  std::size_t offsets[3] = {0, 0, 0};
  std::size_t total = 0;
  for (unsigned p = 0; p < fmt.planes(); ++p) {
    // Rows padded to the alignment so SIMD code may read a full vector.
    const std::size_t stride = round_up(row_bytes(p), kFrameAlignment);
    stride_[p] = static_cast<std::ptrdiff_t>(stride);
    offsets[p] = total;
    total += round_up(stride * fmt.plane_height(p), kFrameAlignment);
  }
  total += kFrameAlignment;  // slack for vector reads past the last row
  // Large frames sit on transparent huge pages: a 4K frame then costs a few
  // page faults instead of thousands when it is first filled.
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const bool huge = total >= kHugePage;
  const std::size_t align = huge ? kHugePage : kFrameAlignment;
  const std::size_t bytes = round_up(total, align);
  void* mem = memory.cuda_pinned ? PinnedStorageCache::get().take(bytes) : nullptr;
  const bool reused = mem != nullptr;
  if (!reused) {
    mem = std::aligned_alloc(align, bytes);
    if (!mem) throw Error("out of memory allocating a " + fmt.describe() + " frame buffer");
#if defined(MADV_HUGEPAGE)
    if (huge) (void)madvise(mem, bytes, MADV_HUGEPAGE);  // a hint; failure is harmless
#endif
  }
  storage_.reset(static_cast<std::uint8_t*>(mem));
  bytes_ = bytes;
  for (unsigned p = 0; p < fmt.planes(); ++p) planes_[p] = storage_.get() + offsets[p];
  // Row padding and the slack are zeroed once so vector reads past a row see
  // defined bytes; the samples themselves are written by every reader.
  for (unsigned p = 0; p < fmt.planes(); ++p) {
    const std::size_t row = row_bytes(p), stride = static_cast<std::size_t>(stride_[p]);
    if (stride > row)
      for (unsigned y = 0; y < fmt.plane_height(p); ++y) std::memset(planes_[p] + y * stride + row, 0, stride - row);
    const std::size_t plane_end = offsets[p] + stride * fmt.plane_height(p);
    const std::size_t next = p + 1 < fmt.planes() ? offsets[p + 1] : bytes;
    std::memset(storage_.get() + plane_end, 0, next - plane_end);
  }
  // After the first touch above, so the pages exist when they are locked.
  if (reused) pinned_ = true;
  else if (memory.cuda_pinned) pinned_ = cuda::pin_host_memory(mem, bytes, memory.gpu);
}

void FrameBuffer::pin(HostMemory memory) {
  if (memory.cuda_pinned && !pinned_) pinned_ = cuda::pin_host_memory(storage_.get(), bytes_, memory.gpu);
}

FrameBuffer::~FrameBuffer() {
  if (!pinned_) return;
  if (PinnedStorageCache::get().keep(storage_.get(), bytes_)) {
    (void)storage_.release();  // owned by the cache now
    return;
  }
  cuda::unpin_host_memory(storage_.get());
}

PictureView FrameBuffer::view() const {
  PictureView v;
  v.format = format_;
  for (unsigned p = 0; p < format_.planes(); ++p) {
    v.data[p] = planes_[p];
    v.stride[p] = stride_[p];
  }
  if (on_device_) v.device = &device_;
  return v;
}

void FrameBuffer::attach_device_planes(std::shared_ptr<void> storage, const DevicePlanes& planes) {
  device_storage_ = std::move(storage);
  device_ = planes;
  for (unsigned p = 0; p < 3; ++p) device_.host[p] = planes_[p];
  on_device_ = false;
}

std::shared_ptr<FramePool> FramePool::create(const VideoFormat& fmt, std::size_t count, HostMemory memory) {
  std::shared_ptr<FramePool> pool(new FramePool());
  pool->format_ = fmt;
  pool->memory_ = memory;
  pool->capacity_ = count;
  pool->all_.reserve(count);
  return pool;
}

std::shared_ptr<FrameBuffer> FramePool::acquire() {
  std::unique_lock lock(mutex_);
  // Buffers are made on first need, up to the capacity: a consumer that keeps
  // up touches few of them, and the most recently used (warm) ones return first.
  cv_.wait(lock, [&] { return cancelled_ || !free_.empty() || all_.size() < capacity_; });
  if (cancelled_) return nullptr;
  if (free_.empty()) {
    all_.push_back(std::make_unique<FrameBuffer>(format_, memory_));
    free_.push_back(all_.back().get());
  }
  FrameBuffer* fb = free_.back();
  free_.pop_back();
  // The deleter holds the pool alive until every buffer is back.
  return std::shared_ptr<FrameBuffer>(fb, [self = shared_from_this()](FrameBuffer* b) { self->give_back(b); });
}

void FramePool::drop_free_beyond_capacity(std::vector<std::unique_ptr<FrameBuffer>>& dropped) {
  while (all_.size() > capacity_ && !free_.empty()) {
    const auto it = std::find_if(all_.begin(), all_.end(), [&](const auto& b) { return b.get() == free_.back(); });
    dropped.push_back(std::move(*it));
    all_.erase(it);
    free_.pop_back();
  }
}

void FramePool::use_memory(HostMemory memory, std::size_t capacity) {
  std::vector<std::unique_ptr<FrameBuffer>> dropped;  // freed outside the lock
  std::vector<FrameBuffer*> existing;
  {
    std::lock_guard lock(mutex_);
    memory_ = memory;  // buffers made from now on
    capacity_ = capacity;
    drop_free_beyond_capacity(dropped);
    for (const auto& b : all_) existing.push_back(b.get());
    pinning_ = true;
  }
  // Outside the lock, so readers go on meanwhile; no buffer is freed until
  // pinning_ is false again.
  for (FrameBuffer* fb : existing) fb->pin(memory);
  {
    std::lock_guard lock(mutex_);
    pinning_ = false;
    drop_free_beyond_capacity(dropped);
  }
  cv_.notify_all();
}

void FramePool::give_back(FrameBuffer* fb) {
  std::unique_ptr<FrameBuffer> dropped;
  {
    std::lock_guard lock(mutex_);
    if (!pinning_ && all_.size() > capacity_) {  // the pool shrank (use_memory)
      const auto it = std::find_if(all_.begin(), all_.end(), [fb](const auto& b) { return b.get() == fb; });
      dropped = std::move(*it);
      all_.erase(it);
    } else {
      free_.push_back(fb);
    }
  }
  cv_.notify_one();
}

void FramePool::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

}  // namespace exactvmaf
