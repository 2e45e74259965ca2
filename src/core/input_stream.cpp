#include "core/input_stream.hpp"

#include <algorithm>

#include "numeric/fpenv.hpp"

namespace exactvmaf::pipeline {

InputStream::InputStream(VideoReader& reader, std::shared_ptr<FramePool> pool, std::uint64_t skipped,
                         std::uint64_t limit, unsigned parallel_readers)
    : reader_(reader), pool_(std::move(pool)), skipped_(skipped), limit_(limit) {
  if (parallel_readers > 1 && reader.random_access() && reader.info().frame_count) {
    readers_ = parallel_readers;
    const std::uint64_t count = *reader.info().frame_count;
    total_ = count > skipped ? count - skipped : 0;
    if (limit_) total_ = std::min(total_, limit_);
  }
}

void InputStream::start() {
  if (readers_ == 0) {
    threads_.emplace_back([this] { loop_sequential(); });
  } else {
    for (unsigned i = 0; i < readers_; ++i) threads_.emplace_back([this] { loop_parallel(); });
  }
}

void InputStream::stop() {
  pool_->cancel();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

std::shared_ptr<FrameBuffer> InputStream::pop() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return ready_.count(next_out_) || finished_ == threads_.size(); });
  auto it = ready_.find(next_out_);
  if (it != ready_.end()) {
    auto b = std::move(it->second);
    ready_.erase(it);
    ++next_out_;
    return b;
  }
  if (error_) std::rethrow_exception(error_);
  return nullptr;
}

void InputStream::loop_sequential() {
  FpEnvGuard env;
  try {
    for (std::uint64_t n = 0; limit_ == 0 || n < limit_; ++n) {
      auto buf = pool_->acquire();
      if (!buf) break;
      if (!reader_.read_frame(*buf)) break;
      deliver(n, std::move(buf));
    }
  } catch (...) {
    fail(std::current_exception());
  }
  finish();
}

void InputStream::loop_parallel() {
  FpEnvGuard env;
  try {
    while (true) {
      // The buffer first, then the index: whoever holds an index holds a
      // buffer, so the frame pop() waits for is always being read.
      auto buf = pool_->acquire();
      if (!buf) break;
      std::uint64_t index;
      {
        std::lock_guard lock(mutex_);
        if (failed_ || next_in_ >= total_) break;
        index = next_in_++;
      }
      reader_.read_frame_at(skipped_ + index, *buf);
      deliver(index, std::move(buf));
    }
  } catch (...) {
    fail(std::current_exception());
  }
  finish();
}

void InputStream::deliver(std::uint64_t index, std::shared_ptr<FrameBuffer> buf) {
  {
    std::lock_guard lock(mutex_);
    ready_.emplace(index, std::move(buf));
  }
  cv_.notify_all();
}

void InputStream::fail(std::exception_ptr e) {
  {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = e;
    failed_ = true;
  }
  // Readers waiting for a buffer would wait forever: the frames ahead that
  // hold the buffers are never taken once the failed frame is missing.
  pool_->cancel();
}

void InputStream::finish() {
  {
    std::lock_guard lock(mutex_);
    ++finished_;
  }
  cv_.notify_all();
}

std::uint64_t frames_in_input(InputStream& s, std::uint64_t skipped, std::uint64_t consumed) {
  const auto& info = s.reader().info();
  if (info.frame_count) return *info.frame_count > skipped ? *info.frame_count - skipped : 0;
  std::uint64_t n = consumed;
  while (s.pop()) ++n;  // drains a pipe rather than leaving its writer blocked
  return n;
}

}  // namespace exactvmaf::pipeline
