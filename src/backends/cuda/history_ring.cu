#include "backends/cuda/history_ring.cuh"

#include <algorithm>
#include <string>
#include <utility>

#include "backends/cuda/check.cuh"

namespace exactvmaf::cuda {

HistoryRing::HistoryRing(const VideoFormat& format, std::uint8_t ref_planes, std::uint8_t dist_planes,
                         unsigned slots)
    : format_(format), ref_planes_(ref_planes), dist_planes_(dist_planes), slots_(std::max(slots, 1u)) {
  EXACTVMAF_CUDA_CHECK(cudaGetDevice(&gpu_));
  try {
    const auto alloc = [&](std::uint8_t planes, DevicePicture& pic) {
      for (unsigned p = 0; p < format_.planes(); ++p) {
        if (!(planes & (1u << p))) continue;
        const unsigned w = format_.picture_width(p), h = format_.picture_height(p);
        buffers_.push_back(
            DeviceBuffer<std::uint8_t>::pitched(static_cast<std::size_t>(w) * format_.bytes_per_sample(), h));
        pic.plane[p] = {buffers_.back().get(), buffers_.back().pitch(), w, h};
      }
    };
    for (Slot& s : slots_) {
      alloc(ref_planes_, s.ref);
      alloc(dist_planes_, s.dist);
      EXACTVMAF_CUDA_CHECK(cudaEventCreateWithFlags(&s.written, cudaEventDisableTiming));
    }
  } catch (...) {
    release();
    throw;
  }
}

HistoryRing::~HistoryRing() { release(); }

void HistoryRing::release() noexcept {
  // The last owner may be a thread bound to another device (or none).
  int current = -1;
  const bool switched = cudaGetDevice(&current) == cudaSuccess && current != gpu_ && cudaSetDevice(gpu_) == cudaSuccess;
  // Copies into and out of the slots end before their buffers go.
  for (Slot& s : slots_)
    if (s.written) {
      (void)cudaEventSynchronize(s.written);
      (void)cudaEventDestroy(std::exchange(s.written, nullptr));
    }
  for (cudaEvent_t& e : reader_done_)
    if (e) {
      (void)cudaEventSynchronize(e);
      (void)cudaEventDestroy(std::exchange(e, nullptr));
    }
  buffers_.clear();
  if (switched) (void)cudaSetDevice(current);
}

int HistoryRing::add_reader() {
  std::lock_guard lock(mutex_);
  cudaEvent_t e = nullptr;
  EXACTVMAF_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  reader_done_.push_back(e);
  return static_cast<int>(reader_done_.size()) - 1;
}

void HistoryRing::copy(const DevicePicture& from, const DevicePicture& to, std::uint8_t planes,
                       cudaStream_t stream) const {
  for (unsigned p = 0; p < format_.planes(); ++p) {
    if (!(planes & (1u << p))) continue;
    const DevicePlane& s = from.plane[p];
    const DevicePlane& d = to.plane[p];
    if (d.width == 0 || d.height == 0) continue;
    EXACTVMAF_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<std::uint8_t*>(d.data), d.pitch, s.data, s.pitch,
                                           static_cast<std::size_t>(d.width) * format_.bytes_per_sample(), d.height,
                                           cudaMemcpyDeviceToDevice, stream));
  }
}

void HistoryRing::publish(std::uint64_t index, const DevicePicture& ref, const DevicePicture& dist,
                          cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  Slot& s = slots_[index % slots_.size()];
  if (s.holds && s.index == index) return;  // already there (a frame scored twice at a hand-over)
  for (const int r : s.readers) EXACTVMAF_CUDA_CHECK(cudaStreamWaitEvent(stream, reader_done_[r], 0));
  s.readers.clear();
  s.holds = false;  // until the copy below is enqueued
  copy(ref, s.ref, ref_planes_, stream);
  copy(dist, s.dist, dist_planes_, stream);
  EXACTVMAF_CUDA_CHECK(cudaEventRecord(s.written, stream));
  s.index = index;
  s.holds = true;
}

bool HistoryRing::fetch(std::uint64_t index, const DevicePicture& ref, const DevicePicture& dist, int reader,
                        cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  Slot& s = slots_[index % slots_.size()];
  if (!s.holds || s.index != index) return false;
  EXACTVMAF_CUDA_CHECK(cudaStreamWaitEvent(stream, s.written, 0));
  copy(s.ref, ref, ref_planes_, stream);
  copy(s.dist, dist, dist_planes_, stream);
  EXACTVMAF_CUDA_CHECK(cudaEventRecord(reader_done_.at(static_cast<std::size_t>(reader)), stream));
  if (std::find(s.readers.begin(), s.readers.end(), reader) == s.readers.end()) s.readers.push_back(reader);
  return true;
}

}  // namespace exactvmaf::cuda
