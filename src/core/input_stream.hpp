// The pipeline's input side (src/core/pipeline.cpp): the frames of one input
// read into its pool ahead of use, by one thread in order, or, for inputs
// readable by frame index (raw regular files), by several threads reading
// different frames at once, handed out in order.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "exactvmaf/frame.hpp"
#include "exactvmaf/io.hpp"

namespace exactvmaf::pipeline {

class InputStream {
 public:
  // `skipped` frames were skipped already; at most `limit` frames (0: all).
  InputStream(VideoReader& reader, std::shared_ptr<FramePool> pool, std::uint64_t skipped, std::uint64_t limit,
              unsigned parallel_readers);
  ~InputStream() { stop(); }
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  void start();
  void stop();
  // Next frame in order, or nullptr at the end of the input. Rethrows a read
  // error once the frames before it are taken.
  std::shared_ptr<FrameBuffer> pop();
  VideoReader& reader() { return reader_; }

 private:
  void loop_sequential();
  void loop_parallel();
  void deliver(std::uint64_t index, std::shared_ptr<FrameBuffer> buf);
  void fail(std::exception_ptr e);
  void finish();

  VideoReader& reader_;
  std::shared_ptr<FramePool> pool_;
  std::uint64_t skipped_, limit_;
  unsigned readers_ = 0;  // 0: one sequential reader
  std::uint64_t total_ = 0;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::uint64_t, std::shared_ptr<FrameBuffer>> ready_;
  std::uint64_t next_in_ = 0, next_out_ = 0;
  std::size_t finished_ = 0;
  bool failed_ = false;
  std::exception_ptr error_;
};

// Frames the input `s` has after its `skipped` ones, for the warning when it
// is the longer input; `consumed` frames of it were taken (including the one
// past the end of the shorter input). Drains a pipe.
std::uint64_t frames_in_input(InputStream& s, std::uint64_t skipped, std::uint64_t consumed);

}  // namespace exactvmaf::pipeline
