// Frames decoded on the GPU (--hwdec cuda, NVDEC through libavcodec) into
// the pipeline's frame buffers, without a trip through the host. No CUDA
// header here: the libav reader (src/av/) calls it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "exactvmaf/frame.hpp"
#include "io/rscale.hpp"

namespace exactvmaf::cuda {

// A decoded surface in device memory: luma, then either interleaved chroma
// (NV12, P010, P016) or two chroma planes (YUV444P, YUV444P16). 16-bit
// samples of 10 and 12-bit video hold the value in their high bits.
struct DecodedSurface {
  const void* plane[3] = {nullptr, nullptr, nullptr};
  std::size_t pitch[3] = {0, 0, 0};
  bool interleaved_chroma = false;
  unsigned shift = 0;  // 16 - bit depth for 16-bit storage of fewer bits, else 0
};

// A stream of device `gpu` for one decoding thread, with what the copies
// into frame buffers need. FFmpeg's own work for the decoder goes on the same
// stream (AVCUDADeviceContext::stream), so a copy follows it.
class DecodeStream {
 public:
  explicit DecodeStream(int gpu);
  ~DecodeStream();
  DecodeStream(const DecodeStream&) = delete;
  DecodeStream& operator=(const DecodeStream&) = delete;
  int gpu() const { return gpu_; }
  void* stream() const { return stream_; }  // a cudaStream_t
  // The GPU's primary context (a CUcontext): the one the cuda backend's
  // runtime calls use, so a decoder on it shares device pointers with them.
  void* context() const { return context_; }

  // Copies `s` into `dst`'s device planes (made on first use), planar with
  // the samples in their low bits, as the host planes would hold them (only
  // luma when `luma_only`), waits for it, and marks `dst` as on the device.
  // Throws Error naming `path` when a dropped low bit is set (the decoder then
  // did not give what its format says).
  void import(const DecodedSurface& s, FrameBuffer& dst, bool luma_only, const std::string& path);

  // From now on import() scales each surface (plan.src_format()) with the R
  // scaler on the device into frame buffers of plan.dst_format(): the same
  // bits as RScalePlan::scale on the host.
  void set_scale(const io::RScalePlan& plan);

 private:
  struct Scaling;
  void scale(const DevicePlanes& out, unsigned planes);
  std::unique_ptr<Scaling> scaling_;
  int gpu_;
  void* context_ = nullptr;
  void* stream_ = nullptr;
  unsigned* low_bits_ = nullptr;  // pinned, written by the copy kernels
};

}  // namespace exactvmaf::cuda
