// The previous frames a feature reads (motion's earlier reference, speed's
// and cambi's history), kept on the device instead of uploaded again by every
// pipeline thread. Frames go to threads in turn, so frame n - 1 was uploaded
// by another thread's runner: each runner copies its uploaded planes into
// slot n mod S of one ring per GPU (publish), and the runner of a later frame
// copies its history from there, device to device (fetch). A frame the ring
// does not hold (scored by the CPU head or on another GPU, overwritten, or not
// yet published) is uploaded from the host as before: the ring changes where
// the bytes come from, never the bytes.
//
// Ordering: every publish and fetch is enqueued under one mutex, so host
// order is device order among them. A publish waits (on the device) for the
// slot's readers' events, then copies, then records the slot's `written`
// event; a fetch waits on `written`, copies, and records its reader's event.
// Each wait names work already enqueued, so no cycle can form; waiting on a
// reader event re-recorded for a later read only waits longer (streams are
// in order).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "backends/cuda/cuda_feature.hpp"
#include "backends/cuda/device_memory.cuh"
#include "exactvmaf/format.hpp"

namespace exactvmaf::cuda {

class HistoryRing {
 public:
  // `slots` frames of `ref_planes` / `dist_planes` (PlaneNeeds bits) on the
  // current device (the one every publish and fetch uses). Throws InternalError (out of device memory included).
  HistoryRing(const VideoFormat& format, std::uint8_t ref_planes, std::uint8_t dist_planes, unsigned slots);
  ~HistoryRing();
  HistoryRing(const HistoryRing&) = delete;
  HistoryRing& operator=(const HistoryRing&) = delete;

  // Whether a runner with these needs can share this ring.
  bool serves(std::uint8_t ref_planes, std::uint8_t dist_planes) const {
    return ref_planes == ref_planes_ && dist_planes == dist_planes_;
  }
  // A reader id for fetch(); the ring owns its event.
  int add_reader();
  // Frame `index`, just uploaded to `ref` / `dist` on `stream`, into its slot.
  void publish(std::uint64_t index, const DevicePicture& ref, const DevicePicture& dist, cudaStream_t stream);
  // Frame `index` into `ref` / `dist` on `stream` when a slot holds it
  // (true); false, with nothing enqueued, when not.
  bool fetch(std::uint64_t index, const DevicePicture& ref, const DevicePicture& dist, int reader,
             cudaStream_t stream);

 private:
  struct Slot {
    DevicePicture ref, dist;
    std::uint64_t index = 0;
    bool holds = false;
    cudaEvent_t written = nullptr;
    std::vector<int> readers;  // since the last publish
  };
  void copy(const DevicePicture& from, const DevicePicture& to, std::uint8_t planes, cudaStream_t stream) const;
  void release() noexcept;

  VideoFormat format_;
  int gpu_ = 0;
  std::uint8_t ref_planes_ = 0, dist_planes_ = 0;
  std::vector<DeviceBuffer<std::uint8_t>> buffers_;
  std::vector<Slot> slots_;
  std::vector<cudaEvent_t> reader_done_;
  std::mutex mutex_;
};

}  // namespace exactvmaf::cuda
