// vmaf_cuda_*: a CUDA state names a device (from the caller's CUcontext or
// device 0); a context given one runs on exactvmaf's CUDA backend. Device
// pictures are pitched allocations in the caller's context, copied to the
// host when read (the backend uploads frames itself). The few driver calls
// needed to honour the caller's context are looked up at run time, so the
// library loads on machines without a CUDA driver.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "libvmaf/context.hpp"

#if defined(EXACTVMAF_HAVE_CUDA)
#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include "backends/cuda/runner.hpp"
#endif

// What vmaf_cuda_state_init hands out (malloc'd: callers free() it after
// vmaf_cuda_import_state, which keeps a copy).
struct VmafCudaState {
  std::uint64_t magic;
  int device;
  void* cu_ctx;
};

namespace exactvmaf::capi {

namespace {
constexpr std::uint64_t kStateMagic = 0x6576766d61666375;  // "evvmafcu"
}

#if defined(EXACTVMAF_HAVE_CUDA)

namespace {

// The driver functions used here (CUresult is an int, CUcontext a pointer).
class Driver {
 public:
  static const Driver& get() {
    static const Driver driver;
    if (!driver.ok_) fail("the CUDA driver (libcuda.so.1) could not be loaded", ENODEV);
    return driver;
  }
  int (*get_current)(void** ctx) = nullptr;
  int (*set_current)(void* ctx) = nullptr;
  int (*get_device)(int* device) = nullptr;

 private:
  Driver() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // kept for the process
    if (lib == nullptr) return;
    get_current = reinterpret_cast<int (*)(void**)>(dlsym(lib, "cuCtxGetCurrent"));
    set_current = reinterpret_cast<int (*)(void*)>(dlsym(lib, "cuCtxSetCurrent"));
    get_device = reinterpret_cast<int (*)(int*)>(dlsym(lib, "cuCtxGetDevice"));
    ok_ = get_current && set_current && get_device;
  }
  bool ok_ = false;
};

// Makes `ctx` (the caller's CUcontext, when given) current for a scope and
// restores the thread's context afterwards: runtime calls made here (which
// bind a device's primary context) leave the caller's thread as it was.
class ContextScope {
 public:
  explicit ContextScope(void* ctx) : driver_(Driver::get()) {
    if (driver_.get_current(&saved_) != 0) saved_ = nullptr;
    if (ctx != nullptr && driver_.set_current(ctx) != 0)
      fail("the CUcontext given to vmaf_cuda_state_init is not usable", ENODEV);
  }
  ~ContextScope() { (void)driver_.set_current(saved_); }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  const Driver& driver_;
  void* saved_ = nullptr;
};

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  fail(fmt::format("{}: {}", what, cudaGetErrorString(e)), e == cudaErrorMemoryAllocation ? ENOMEM : EINVAL);
}

class CudaDeviceFrame final : public DeviceFrame {
 public:
  CudaDeviceFrame(const CudaDevice& device, const VideoFormat& format) : device_(device) {
    format_ = format;
    ContextScope scope(device.cu_ctx);
    try {
      if (device.cu_ctx == nullptr) check(cudaSetDevice(device.device), "cudaSetDevice");
      for (unsigned p = 0; p < format.planes(); ++p) {
        std::size_t pitch = 0;
        const std::size_t row = std::max(1u, format.picture_width(p)) * std::size_t{format.bytes_per_sample()};
        check(cudaMallocPitch(&data[p], &pitch, row, std::max(1u, format.picture_height(p))), "cudaMallocPitch");
        this->pitch[p] = static_cast<std::ptrdiff_t>(pitch);
      }
    } catch (...) {
      free_planes();
      throw;
    }
  }
  ~CudaDeviceFrame() override {
    try {
      ContextScope scope(device_.cu_ctx);
      free_planes();
    } catch (const std::exception&) {
      // No driver left at exit: nothing to free.
    }
  }
  std::shared_ptr<FrameBuffer> download(FramePool& pool) const override {
    std::shared_ptr<FrameBuffer> host;
    {
      ContextScope keep(nullptr);  // page-locking a new buffer binds the primary context
      host = pool.acquire();
    }
    if (!host) fail("the context was stopped");
    ContextScope scope(device_.cu_ctx);
    for (unsigned p = 0; p < format_.planes(); ++p)
      check(cudaMemcpy2D(host->plane(p), static_cast<std::size_t>(host->stride(p)), data[p],
                         static_cast<std::size_t>(pitch[p]),
                         std::size_t{format_.picture_width(p)} * format_.bytes_per_sample(), format_.picture_height(p),
                         cudaMemcpyDeviceToHost),
            "copying a device picture to the host");
    return host;
  }

 private:
  void free_planes() {
    for (void*& d : data) {
      if (d != nullptr) (void)cudaFree(d);
      d = nullptr;
    }
    (void)cudaGetLastError();
  }
  CudaDevice device_;
};

}  // namespace

std::shared_ptr<DeviceFrame> make_device_frame(const CudaDevice& device, const VideoFormat& format) {
  return std::make_shared<CudaDeviceFrame>(device, format);
}

std::shared_ptr<FrameBuffer> make_pinned_frame(const CudaDevice& device, const VideoFormat& format) {
  ContextScope scope(nullptr);  // pinning binds the device's primary context to this thread
  return std::make_shared<FrameBuffer>(format, HostMemory{true, device.device});
}

#else

namespace {
[[noreturn]] void no_cuda() {
  fail("this build of exactvmaf has no CUDA backend (configure with nvcc present or -DEXACTVMAF_CUDA=ON)", ENOSYS);
}
}  // namespace

std::shared_ptr<DeviceFrame> make_device_frame(const CudaDevice&, const VideoFormat&) { no_cuda(); }
std::shared_ptr<FrameBuffer> make_pinned_frame(const CudaDevice&, const VideoFormat&) { no_cuda(); }

#endif

}  // namespace exactvmaf::capi

using namespace exactvmaf;
using namespace exactvmaf::capi;

extern "C" int vmaf_cuda_state_init(VmafCudaState** cu_state, VmafCudaConfiguration cfg) {
  return guarded(__func__, [&]() -> int {
    not_null(cu_state, "cu_state");
#if defined(EXACTVMAF_HAVE_CUDA)
    int device = 0;
    {
      ContextScope scope(cfg.cu_ctx);
      if (cfg.cu_ctx != nullptr && Driver::get().get_device(&device) != 0)
        fail("cannot tell the device of the given CUcontext", ENODEV);
      const std::string problem = cuda::device_problem(device);
      if (!problem.empty()) fail(problem, ENODEV);
    }
    auto* s = static_cast<VmafCudaState*>(std::malloc(sizeof(VmafCudaState)));
    if (s == nullptr) throw std::bad_alloc();
    *s = VmafCudaState{kStateMagic, device, cfg.cu_ctx};
    *cu_state = s;
    return 0;
#else
    (void)cfg;
    no_cuda();
#endif
  });
}

extern "C" int vmaf_cuda_import_state(VmafContext* vmaf, VmafCudaState* cu_state) {
  return guarded(__func__, [&] {
    VmafContext& v = checked(vmaf, g_contexts, "vmaf");
    const VmafCudaState& s = not_null(cu_state, "cu_state");
    if (s.magic != kStateMagic) fail("cu_state is not a state from vmaf_cuda_state_init");
    v.use_cuda({s.device, s.cu_ctx});
    return 0;
  });
}

extern "C" int vmaf_cuda_preallocate_pictures(VmafContext* vmaf, VmafCudaPictureConfiguration cfg) {
  return guarded(__func__, [&] {
    VmafContext& v = checked(vmaf, g_contexts, "vmaf");
    const int method = enum_value(cfg.pic_prealloc_method);
    switch (method) {
      case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE:
      case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE:
      case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
      case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED: break;
      default: fail(fmt::format("pic_prealloc_method {} is not a VmafCudaPicturePreallocationMethod", method));
    }
    if (method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE) {
      v.cuda_preallocate({}, method);
      return 0;
    }
    const auto& p = cfg.pic_params;
    v.cuda_preallocate(picture_format(enum_value(p.pix_fmt), p.bpc, p.w, p.h), method);
    return 0;
  });
}

extern "C" int vmaf_cuda_fetch_preallocated_picture(VmafContext* vmaf, VmafPicture* pic) {
  return guarded(__func__, [&] {
    VmafContext& v = checked(vmaf, g_contexts, "vmaf");
    v.cuda_fetch_preallocated(not_null(pic, "pic"));
    return 0;
  });
}
