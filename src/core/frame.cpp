#include "exactvmaf/frame.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "exactvmaf/error.hpp"

namespace exactvmaf {

namespace {
std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }
}  // namespace

void FrameBuffer::AlignedFree::operator()(std::uint8_t* p) const { std::free(p); }

FrameBuffer::FrameBuffer(const VideoFormat& fmt) : format_(fmt) {
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
  void* mem = std::aligned_alloc(kFrameAlignment, round_up(total, kFrameAlignment));
  if (!mem) throw Error("out of memory allocating a " + fmt.describe() + " frame buffer");
  storage_.reset(static_cast<std::uint8_t*>(mem));
  for (unsigned p = 0; p < fmt.planes(); ++p) planes_[p] = storage_.get() + offsets[p];
  // Padding is zeroed once so vector reads past a row see defined bytes.
  std::memset(storage_.get(), 0, round_up(total, kFrameAlignment));
}

PictureView FrameBuffer::view() const {
  PictureView v;
  v.format = format_;
  for (unsigned p = 0; p < format_.planes(); ++p) {
    v.data[p] = planes_[p];
    v.stride[p] = stride_[p];
  }
  return v;
}

std::shared_ptr<FramePool> FramePool::create(const VideoFormat& fmt, std::size_t count) {
  std::shared_ptr<FramePool> pool(new FramePool());
  pool->all_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    pool->all_.push_back(std::make_unique<FrameBuffer>(fmt));
    pool->free_.push_back(pool->all_.back().get());
  }
  return pool;
}

std::shared_ptr<FrameBuffer> FramePool::acquire() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return cancelled_ || !free_.empty(); });
  if (cancelled_) return nullptr;
  FrameBuffer* fb = free_.back();
  free_.pop_back();
  // The deleter holds the pool alive until every buffer is back.
  return std::shared_ptr<FrameBuffer>(fb, [self = shared_from_this()](FrameBuffer* b) { self->give_back(b); });
}

void FramePool::give_back(FrameBuffer* fb) {
  {
    std::lock_guard lock(mutex_);
    free_.push_back(fb);
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
