/* The vmaf_cuda_* path from C, as a CUDA client (FFmpeg's libvmaf_cuda
 * filter) uses it: the caller's own CUcontext, device pictures from the
 * preallocation filled with the caller's copies, page-locked host pictures,
 * and $EXACTVMAF_BACKEND=cuda with plain pictures, also with
 * $EXACTVMAF_DEVICE_FP64=off. Each run's report (full precision, every
 * frame) must equal the CPU's byte for byte (fps aside), and each must have
 * run on the GPU, the last without fp64 (the library says so on stderr).
 * Exit 0: all equal; 1: a difference or an error; 77: skipped, no usable
 * CUDA device or driver (said on stdout). */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_text.h"
#include <libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>

static int g_failures;
#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      ++g_failures;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
    }                                                                           \
  } while (0)

/* The driver calls the test makes as a client, looked up at run time so the
 * binary starts (and skips) on machines without a driver. */
static struct {
  CUresult (*init)(unsigned);
  CUresult (*device_get)(CUdevice *, int);
  CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice);
  CUresult (*ctx_destroy)(CUcontext);
  CUresult (*ctx_push)(CUcontext);
  CUresult (*ctx_pop)(CUcontext *);
  CUresult (*memcpy2d)(const CUDA_MEMCPY2D *);
} cu;

static int load_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) return 0;
  *(void **)&cu.init = dlsym(lib, "cuInit");
  *(void **)&cu.device_get = dlsym(lib, "cuDeviceGet");
  *(void **)&cu.ctx_create = dlsym(lib, "cuCtxCreate_v2");
  *(void **)&cu.ctx_destroy = dlsym(lib, "cuCtxDestroy_v2");
  *(void **)&cu.ctx_push = dlsym(lib, "cuCtxPushCurrent_v2");
  *(void **)&cu.ctx_pop = dlsym(lib, "cuCtxPopCurrent_v2");
  *(void **)&cu.memcpy2d = dlsym(lib, "cuMemcpy2D_v2");
  return cu.init && cu.device_get && cu.ctx_create && cu.ctx_destroy && cu.ctx_push && cu.ctx_pop && cu.memcpy2d;
}

/* ---- frames: a moving ramp with noise, 8-bit 4:2:0 ---------------------- */

enum { W = 640, H = 360, FRAMES = 12 };

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 24;
}

/* Plane p of frame i of the reference (dist = 0) or distorted (dist = 1). */
static void make_plane(unsigned char *dst, unsigned w, unsigned h, unsigned i, unsigned p, int dist) {
  uint32_t s = 12345u + 977u * i + 31u * p + (dist ? 7u : 0u);
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      int v = (int)((x * 3 + y * 2 + i * 5 + p * 40) % 220) + 16;
      if (dist) v += (int)(lcg(&s) % 9) - 4;
      dst[(size_t)y * w + x] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

static void fill_host(VmafPicture *pic, unsigned i, int dist) {
  unsigned char *plane = malloc((size_t)W * H);
  for (unsigned p = 0; p < 3; ++p) {
    make_plane(plane, pic->w[p], pic->h[p], i, p, dist);
    for (unsigned y = 0; y < pic->h[p]; ++y)
      memcpy((unsigned char *)pic->data[p] + (size_t)y * pic->stride[p], plane + (size_t)y * pic->w[p], pic->w[p]);
  }
  free(plane);
}

/* The caller's copy into a device picture, in the caller's context. */
static void fill_device(VmafPicture *pic, unsigned i, int dist, CUcontext ctx) {
  unsigned char *plane = malloc((size_t)W * H);
  CHECK(cu.ctx_push(ctx) == CUDA_SUCCESS);
  for (unsigned p = 0; p < 3; ++p) {
    make_plane(plane, pic->w[p], pic->h[p], i, p, dist);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = plane;
    c.srcPitch = pic->w[p];
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = (CUdeviceptr)(uintptr_t)pic->data[p];
    c.dstPitch = (size_t)pic->stride[p];
    c.WidthInBytes = pic->w[p];
    c.Height = pic->h[p];
    CHECK(cu.memcpy2d(&c) == CUDA_SUCCESS);
  }
  CUcontext popped;
  CHECK(cu.ctx_pop(&popped) == CUDA_SUCCESS);
  free(plane);
}

/* ---- one run -------------------------------------------------------------- */

enum Mode { CPU, CUDA_OWN_CONTEXT_DEVICE_PICTURES, CUDA_PINNED_PICTURES, CUDA_ENV_HOST_PICTURES, CUDA_ENV_FP64_OFF };
static const char *const kModeNames[] = {"cpu", "cuda: own CUcontext, device pictures", "cuda: page-locked pictures",
                                         "cuda: EXACTVMAF_BACKEND=cuda, plain pictures",
                                         "cuda: EXACTVMAF_DEVICE_FP64=off, plain pictures"};

/* The full-precision JSON report of a run; stderr goes to `log` meanwhile. */
static char *run(enum Mode mode, CUcontext own_ctx, const char *log) {
  char path[256];
  snprintf(path, sizeof path, "/tmp/exactvmaf_cuda_api_test_%d_%d.json", (int)getpid(), (int)mode);
  fflush(stderr);
  const int saved = dup(2);
  FILE *capture = fopen(log, "w");
  dup2(fileno(capture), 2);

  setenv("EXACTVMAF_PRECISION", "max", 1);
  if (mode == CUDA_ENV_HOST_PICTURES || mode == CUDA_ENV_FP64_OFF) setenv("EXACTVMAF_BACKEND", "cuda", 1);
  else unsetenv("EXACTVMAF_BACKEND");
  if (mode == CUDA_ENV_FP64_OFF) setenv("EXACTVMAF_DEVICE_FP64", "off", 1);
  else unsetenv("EXACTVMAF_DEVICE_FP64");
  VmafConfiguration cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.log_level = VMAF_LOG_LEVEL_INFO;
  cfg.gpumask = mode == CPU;
  VmafContext *vmaf = NULL;
  CHECK(vmaf_init(&vmaf, cfg) == 0);
  VmafModelConfig mc = {NULL, 0};
  VmafModel *model = NULL;
  CHECK(vmaf_model_load(&model, &mc, "vmaf_v0.6.1") == 0);
  CHECK(vmaf_use_features_from_model(vmaf, model) == 0);

  if (mode == CUDA_OWN_CONTEXT_DEVICE_PICTURES || mode == CUDA_PINNED_PICTURES) {
    VmafCudaState *state = NULL;
    VmafCudaConfiguration cc = {mode == CUDA_OWN_CONTEXT_DEVICE_PICTURES ? (void *)own_ctx : NULL};
    CHECK(vmaf_cuda_state_init(&state, cc) == 0);
    CHECK(vmaf_cuda_import_state(vmaf, state) == 0);
    free(state); /* the context keeps its copy */
    VmafCudaPictureConfiguration pc;
    memset(&pc, 0, sizeof pc);
    pc.pic_params.w = W;
    pc.pic_params.h = H;
    pc.pic_params.bpc = 8;
    pc.pic_params.pix_fmt = VMAF_PIX_FMT_YUV420P;
    pc.pic_prealloc_method = mode == CUDA_PINNED_PICTURES ? VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED
                                                          : VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, pc) == 0);
  }
  for (unsigned i = 0; i < FRAMES; ++i) {
    VmafPicture ref, dist;
    if (mode == CUDA_OWN_CONTEXT_DEVICE_PICTURES || mode == CUDA_PINNED_PICTURES) {
      CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &ref) == 0);
      CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &dist) == 0);
    } else {
      CHECK(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, W, H) == 0);
      CHECK(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, W, H) == 0);
    }
    if (mode == CUDA_OWN_CONTEXT_DEVICE_PICTURES) {
      fill_device(&ref, i, 0, own_ctx);
      fill_device(&dist, i, 1, own_ctx);
    } else {
      fill_host(&ref, i, 0);
      fill_host(&dist, i, 1);
    }
    CHECK(vmaf_read_pictures(vmaf, &ref, &dist, i) == 0);
  }
  CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);
  double pooled = 0;
  CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &pooled, 0, FRAMES - 1) == 0);
  CHECK(vmaf_write_output(vmaf, path, VMAF_OUTPUT_FORMAT_JSON) == 0);
  CHECK(vmaf_close(vmaf) == 0);
  vmaf_model_destroy(model);

  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fclose(capture);
  char *report = read_text(path);
  unlink(path);
  CHECK(report != NULL);
  if (report) blank_fps(report);
  printf("%-46s mean VMAF %.17g\n", kModeNames[mode], pooled);
  return report;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (!load_driver() || cu.init(0) != CUDA_SUCCESS) {
    printf("SKIP: no CUDA driver (libcuda.so.1) or cuInit failed\n");
    return 77;
  }
  VmafCudaState *probe = NULL;
  VmafCudaConfiguration none = {NULL};
  const int rc = vmaf_cuda_state_init(&probe, none);
  if (rc == -ENOSYS || rc == -ENODEV) {
    printf("SKIP: vmaf_cuda_state_init returned %d (no CUDA backend or no usable device)\n", rc);
    return 77;
  }
  CHECK(rc == 0);
  free(probe);
  CUdevice dev;
  CUcontext own = NULL, popped;
  CHECK(cu.device_get(&dev, 0) == CUDA_SUCCESS);
  CHECK(cu.ctx_create(&own, 0, dev) == CUDA_SUCCESS);
  CHECK(cu.ctx_pop(&popped) == CUDA_SUCCESS); /* as a client keeps it: current only around its calls */

  const char *log = "/tmp/exactvmaf_cuda_api_test.stderr";
  char *cpu = run(CPU, own, log);
  for (int mode = CUDA_OWN_CONTEXT_DEVICE_PICTURES; mode <= CUDA_ENV_FP64_OFF; ++mode) {
    char *gpu = run((enum Mode)mode, own, log);
    char *said = read_text(log);
    const int on_cuda = said && strstr(said, " on cuda (") != NULL;
    if (!on_cuda) fprintf(stderr, "%s did not run on cuda; its log:\n%s\n", kModeNames[mode], said ? said : "");
    CHECK(on_cuda);
    if (mode == CUDA_ENV_FP64_OFF) {
      const int fp64_free = said && strstr(said, ", fp64-free arithmetic)") != NULL;
      if (!fp64_free)
        fprintf(stderr, "%s did not say fp64-free arithmetic; its log:\n%s\n", kModeNames[mode], said ? said : "");
      CHECK(fp64_free);
    }
    const int same = cpu && gpu && strcmp(cpu, gpu) == 0;
    if (!same) fprintf(stderr, "%s: the report differs from the cpu's\n", kModeNames[mode]);
    CHECK(same);
    free(said);
    free(gpu);
  }
  free(cpu);
  unlink(log);
  CHECK(cu.ctx_destroy(own) == CUDA_SUCCESS);
  printf("cuda_api_test: %s\n", g_failures ? "FAILED" : "every CUDA run equals the CPU, byte for byte");
  return g_failures ? 1 : 0;
}
