/* The libvmaf C API, used from C (C11) the way libvmaf's clients use it:
 * every function, every error return, the scores against the R goldens,
 * the FP environment of the caller, two contexts at once, and
 * $EXACTVMAF_DEVICE_FP64.
 * Run: api_test FIXTURES_DIR MODEL_FILE_DIR. Exit 0 when every check passes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "report_text.h"
#include <libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>
#include <libvmaf/version.h>

static int g_checks, g_failures;
static const char *g_fixtures, *g_models;

#define CHECK(cond)                                                              \
  do {                                                                           \
    ++g_checks;                                                                  \
    if (!(cond)) {                                                               \
      ++g_failures;                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
    }                                                                            \
  } while (0)

/* The call returns `expected` (0 or a negative errno value). */
#define CHECK_RC(call, expected)                                                             \
  do {                                                                                       \
    const int rc_ = (call);                                                                  \
    ++g_checks;                                                                              \
    if (rc_ != (expected)) {                                                                 \
      ++g_failures;                                                                          \
      fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, #call, rc_, \
              (int)(expected));                                                              \
    }                                                                                        \
  } while (0)

/* Same bits (the R goldens are zero-tolerance). */
#define CHECK_BITS(value, expected)                                                                \
  do {                                                                                             \
    const double v_ = (value), e_ = (expected);                                                    \
    ++g_checks;                                                                                    \
    if (memcmp(&v_, &e_, sizeof v_) != 0) {                                                        \
      ++g_failures;                                                                                \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #value, v_, e_); \
    }                                                                                              \
  } while (0)

static VmafConfiguration config(unsigned threads, unsigned subsample) {
  VmafConfiguration cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.log_level = VMAF_LOG_LEVEL_NONE;  /* the error lines are the checks' business */
  cfg.n_threads = threads;
  cfg.n_subsample = subsample;
  return cfg;
}

static VmafContext *open_context(unsigned threads, unsigned subsample) {
  VmafContext *vmaf = NULL;
  CHECK_RC(vmaf_init(&vmaf, config(threads, subsample)), 0);
  return vmaf;
}

/* ---- a raw 8-bit 4:2:0 fixture pair ------------------------------------- */

typedef struct {
  unsigned w, h, frames;
  unsigned char *ref, *dist; /* frames packed as in the .yuv files */
} Clip;

static size_t frame_bytes(const Clip *c) { return (size_t)c->w * c->h + 2 * (size_t)((c->w + 1) / 2) * ((c->h + 1) / 2); }

static unsigned char *read_file(const char *name, size_t *size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", g_fixtures, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *data = malloc(*size);
  if (!data || fread(data, 1, *size, f) != *size) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fclose(f);
  return data;
}

static Clip load_clip(const char *pair, unsigned w, unsigned h) {
  Clip c = {w, h, 0, NULL, NULL};
  char name[256];
  size_t ref_size, dist_size;
  snprintf(name, sizeof name, "%s_ref.yuv", pair);
  c.ref = read_file(name, &ref_size);
  snprintf(name, sizeof name, "%s_dist.yuv", pair);
  c.dist = read_file(name, &dist_size);
  c.frames = (unsigned)(ref_size / frame_bytes(&c));
  return c;
}

static void free_clip(Clip *c) {
  free(c->ref);
  free(c->dist);
}

/* Copies frame `i` of one input into `pic` (allocated 8-bit 4:2:0, w x h). */
static void fill(VmafPicture *pic, const Clip *c, const unsigned char *input, unsigned i) {
  const unsigned char *src = input + frame_bytes(c) * i;
  const unsigned cw = (c->w + 1) / 2, ch = (c->h + 1) / 2;
  for (unsigned p = 0; p < 3; ++p) {
    const unsigned sw = p ? cw : c->w, sh = p ? ch : c->h;
    for (unsigned y = 0; y < pic->h[p]; ++y)
      memcpy((unsigned char *)pic->data[p] + (size_t)y * pic->stride[p], src + (size_t)y * sw, pic->w[p]);
    src += (size_t)sw * sh;
  }
}

/* Gives every frame of the clip, then flushes. */
static void read_clip(VmafContext *vmaf, const Clip *c) {
  for (unsigned i = 0; i < c->frames; ++i) {
    VmafPicture ref, dist;
    CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, c->w, c->h), 0);
    CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, c->w, c->h), 0);
    fill(&ref, c, c->ref, i);
    fill(&dist, c, c->dist, i);
    CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, i), 0);
    CHECK(ref.ref == NULL && dist.ref == NULL); /* taken by the context */
  }
  CHECK_RC(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
}

static VmafModel *load_default_model(void) {
  VmafModelConfig cfg = {NULL, VMAF_MODEL_FLAGS_DEFAULT};
  VmafModel *model = NULL;
  CHECK_RC(vmaf_model_load(&model, &cfg, "vmaf_v0.6.1"), 0);
  return model;
}

/* ---- R goldens (tests/golden/r) ------------------------------------------ */

/* c01_176x144_8b_420/vmaf_v0.6.1.json */
static const double kC01Vmaf0 = 56.3990409772641;
static const double kC01VmafMean = 51.882842771384034;
static const double kC01VmafMin = 45.77074736593665;
static const double kC01VmafHarmonic = 51.662013497618574;
static const double kC01Adm2At0 = 0.8891624905410357;
/* flat_64x64_8b_420/psnr.json: luma off by one everywhere (the mean of
 * three equal values is not that value: the sum rounds) */
static const double kFlatPsnrY = 48.1308036086791;
static const double kFlatPsnrYMean = 48.130803608679095;

/* ---- tests ---------------------------------------------------------------- */

static void test_version(void) {
  const char *v = vmaf_version();
  CHECK(v != NULL && v[0] != '\0');
  CHECK(VMAF_API_VERSION_MAJOR == 3);
}

static void test_dictionary(void) {
  VmafFeatureDictionary *d = NULL;
  CHECK_RC(vmaf_feature_dictionary_set(NULL, "k", "v"), -EINVAL);
  CHECK_RC(vmaf_feature_dictionary_set(&d, NULL, "v"), -EINVAL);
  CHECK_RC(vmaf_feature_dictionary_set(&d, "k", NULL), -EINVAL);
  CHECK(d == NULL);
  CHECK_RC(vmaf_feature_dictionary_set(&d, "enable_chroma", "true"), 0);
  CHECK(d != NULL);
  CHECK_RC(vmaf_feature_dictionary_set(&d, "enable_chroma", "false"), 0); /* replaces */
  CHECK_RC(vmaf_feature_dictionary_free(NULL), -EINVAL);
  CHECK_RC(vmaf_feature_dictionary_free(&d), 0);
  CHECK(d == NULL);
  CHECK_RC(vmaf_feature_dictionary_free(&d), 0); /* *dict NULL: nothing to free */
}

static void test_pictures(void) {
  VmafPicture pic;
  CHECK_RC(vmaf_picture_alloc(NULL, VMAF_PIX_FMT_YUV420P, 8, 16, 16), -EINVAL);
  CHECK_RC(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_UNKNOWN, 8, 16, 16), -EINVAL);
  CHECK_RC(vmaf_picture_alloc(&pic, (enum VmafPixelFormat)99, 8, 16, 16), -EINVAL);
  CHECK_RC(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 9, 16, 16), -EINVAL);
  CHECK_RC(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 7, 16, 16), -EINVAL);
  CHECK_RC(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 0, 16), -EINVAL);
  CHECK_RC(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 16, 0), -EINVAL);

  /* libvmaf's plane sizes: chroma w >> 1 (4:2:0, 4:2:2), h >> 1 (4:2:0). */
  const struct {
    enum VmafPixelFormat fmt;
    unsigned bpc, cw, ch;
  } cases[] = {{VMAF_PIX_FMT_YUV420P, 8, 87, 48}, {VMAF_PIX_FMT_YUV422P, 10, 87, 97},
               {VMAF_PIX_FMT_YUV444P, 12, 175, 97}, {VMAF_PIX_FMT_YUV400P, 16, 0, 0}};
  for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    CHECK_RC(vmaf_picture_alloc(&pic, cases[k].fmt, cases[k].bpc, 175, 97), 0);
    CHECK(pic.pix_fmt == cases[k].fmt && pic.bpc == cases[k].bpc);
    CHECK(pic.w[0] == 175 && pic.h[0] == 97 && pic.w[1] == cases[k].cw && pic.h[2] == cases[k].ch);
    const unsigned bytes = cases[k].bpc > 8 ? 2 : 1;
    CHECK(pic.ref != NULL && pic.data[0] != NULL && pic.stride[0] >= (ptrdiff_t)(175 * bytes));
    if (cases[k].fmt == VMAF_PIX_FMT_YUV400P) CHECK(pic.data[1] == NULL && pic.data[2] == NULL);
    /* zero-filled, as libvmaf's */
    int zero = 1;
    for (unsigned p = 0; p < 3; ++p)
      for (unsigned y = 0; y < pic.h[p]; ++y)
        for (unsigned x = 0; x < pic.w[p] * bytes; ++x)
          zero = zero && ((unsigned char *)pic.data[p])[(size_t)y * pic.stride[p] + x] == 0;
    CHECK(zero);
    CHECK_RC(vmaf_picture_unref(&pic), 0);
    CHECK(pic.ref == NULL && pic.data[0] == NULL);
    CHECK_RC(vmaf_picture_unref(&pic), -EINVAL); /* already unreferenced */
  }
  CHECK_RC(vmaf_picture_unref(NULL), -EINVAL);
  VmafPicture never;
  memset(&never, 0, sizeof never);
  CHECK_RC(vmaf_picture_unref(&never), -EINVAL);
  /* A copy of a picture already unreferenced: an error, not a crash. */
  VmafPicture a, b;
  CHECK_RC(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, 8, 16, 16), 0);
  b = a;
  CHECK_RC(vmaf_picture_unref(&a), 0);
  CHECK_RC(vmaf_picture_unref(&b), -EINVAL);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void test_models(void) {
  VmafModelConfig cfg = {NULL, VMAF_MODEL_FLAGS_DEFAULT};
  VmafModel *model = NULL;
  VmafModelCollection *collection = NULL;
  char path[4096];

  CHECK_RC(vmaf_model_load(NULL, &cfg, "vmaf_v0.6.1"), -EINVAL);
  CHECK_RC(vmaf_model_load(&model, NULL, "vmaf_v0.6.1"), -EINVAL);
  CHECK_RC(vmaf_model_load(&model, &cfg, NULL), -EINVAL);
  CHECK_RC(vmaf_model_load(&model, &cfg, "no_such_model"), -EINVAL);
  CHECK_RC(vmaf_model_load(&model, &cfg, "../vmaf_v0.6.1"), -EINVAL);
  CHECK_RC(vmaf_model_load_from_path(&model, &cfg, NULL), -EINVAL);
  CHECK_RC(vmaf_model_load_from_path(&model, &cfg, "/nonexistent/model.json"), -EINVAL);
  CHECK_RC(vmaf_model_load_from_path(&model, &cfg, "/tmp"), -EINVAL);
  snprintf(path, sizeof path, "/tmp/exactvmaf_api_test_%d.pkl", (int)getpid());
  write_text(path, "{}");
  CHECK_RC(vmaf_model_load_from_path(&model, &cfg, path), -EINVAL);
  unlink(path);
  snprintf(path, sizeof path, "/tmp/exactvmaf_api_test_%d.json", (int)getpid());
  write_text(path, "{ not json");
  CHECK_RC(vmaf_model_load_from_path(&model, &cfg, path), -EINVAL);
  write_text(path, "{\"model_dict\": {}}");
  CHECK_RC(vmaf_model_load_from_path(&model, &cfg, path), -EINVAL);
  unlink(path);
  CHECK(model == NULL);

  snprintf(path, sizeof path, "%s/vmaf_v0.6.1.json", g_models);
  CHECK_RC(vmaf_model_load_from_path(&model, &cfg, path), 0);
  vmaf_model_destroy(model);
  cfg.name = "";
  CHECK_RC(vmaf_model_load(&model, &cfg, "vmaf_v0.6.1"), -EINVAL);
  cfg.name = "neg";
  cfg.flags = VMAF_MODEL_FLAG_DISABLE_CLIP | VMAF_MODEL_FLAG_ENABLE_TRANSFORM;
  CHECK_RC(vmaf_model_load(&model, &cfg, "vmaf_v0.6.1neg"), 0);

  /* vmaf_model_feature_overload takes the dictionary whatever happens. */
  VmafFeatureDictionary *d = NULL;
  CHECK_RC(vmaf_model_feature_overload(NULL, "adm", NULL), -EINVAL);
  vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.1");
  CHECK_RC(vmaf_model_feature_overload(model, NULL, d), -EINVAL);
  d = NULL;
  CHECK_RC(vmaf_model_feature_overload(model, "adm", NULL), -EINVAL);
  vmaf_feature_dictionary_set(&d, "no_such_option", "1");
  CHECK_RC(vmaf_model_feature_overload(model, "adm", d), -EINVAL);
  d = NULL;
  vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1000");  /* out of range */
  CHECK_RC(vmaf_model_feature_overload(model, "adm", d), -EINVAL);
  d = NULL;
  vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.1");
  CHECK_RC(vmaf_model_feature_overload(model, "adm", d), 0);
  d = NULL;
  vmaf_feature_dictionary_set(&d, "psnr_x", "1");
  CHECK_RC(vmaf_model_feature_overload(model, "psnr", d), 0); /* no psnr in the model: nothing changes */
  vmaf_model_destroy(model);
  vmaf_model_destroy(model); /* destroyed twice: logged, no crash */
  vmaf_model_destroy(NULL);

  cfg.name = NULL;
  cfg.flags = 0;
  model = NULL;
  CHECK_RC(vmaf_model_collection_load(NULL, &collection, &cfg, "vmaf_b_v0.6.3"), -EINVAL);
  CHECK_RC(vmaf_model_collection_load(&model, NULL, &cfg, "vmaf_b_v0.6.3"), -EINVAL);
  CHECK_RC(vmaf_model_collection_load(&model, &collection, &cfg, NULL), -EINVAL);
  CHECK_RC(vmaf_model_collection_load(&model, &collection, &cfg, "vmaf_v0.6.1"), -EINVAL); /* not bootstrap */
  CHECK_RC(vmaf_model_collection_load_from_path(&model, &collection, &cfg, "/nonexistent.json"), -EINVAL);
  CHECK_RC(vmaf_model_collection_load_from_path(&model, &collection, &cfg, NULL), -EINVAL);
  snprintf(path, sizeof path, "%s/vmaf_b_v0.6.3.json", g_models);
  CHECK_RC(vmaf_model_collection_load_from_path(&model, &collection, &cfg, path), 0);
  d = NULL;
  vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.0");
  CHECK_RC(vmaf_model_collection_feature_overload(model, NULL, "vif", d), -EINVAL);
  d = NULL;
  vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.0");
  CHECK_RC(vmaf_model_collection_feature_overload(model, &collection, "vif", d), 0);
  vmaf_model_destroy(model);
  vmaf_model_collection_destroy(collection);
  vmaf_model_collection_destroy(collection); /* twice: logged, no crash */
  vmaf_model_collection_destroy(NULL);
}

static void test_context_errors(void) {
  VmafContext *vmaf = NULL;
  VmafPicture ref, dist;
  double score;

  CHECK_RC(vmaf_init(NULL, config(0, 1)), -EINVAL);
  CHECK_RC(vmaf_close(NULL), -EINVAL);
  CHECK_RC(vmaf_use_feature(NULL, "psnr", NULL), -EINVAL);
  CHECK_RC(vmaf_use_features_from_model(NULL, NULL), -EINVAL);
  CHECK_RC(vmaf_read_pictures(NULL, NULL, NULL, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_at_index(NULL, "psnr_y", &score, 0), -EINVAL);
  CHECK_RC(vmaf_write_output(NULL, "/dev/null", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);

  vmaf = open_context(1, 1);
  CHECK_RC(vmaf_use_feature(vmaf, NULL, NULL), -EINVAL);
  CHECK_RC(vmaf_use_feature(vmaf, "no_such_feature", NULL), -EINVAL);
  CHECK_RC(vmaf_use_feature(vmaf, "ssim", NULL), -EINVAL); /* upstream never registers its integer ssim */
  VmafFeatureDictionary *d = NULL;
  vmaf_feature_dictionary_set(&d, "no_such_option", "1");
  CHECK_RC(vmaf_use_feature(vmaf, "psnr", d), -EINVAL);
  CHECK(d != NULL); /* still the caller's after a failure */
  vmaf_feature_dictionary_free(&d);
  vmaf_feature_dictionary_set(&d, "min_sse", "-1");
  CHECK_RC(vmaf_use_feature(vmaf, "psnr", d), -EINVAL); /* out of range */
  vmaf_feature_dictionary_free(&d);
  CHECK_RC(vmaf_use_features_from_model(vmaf, NULL), -EINVAL);
  CHECK_RC(vmaf_use_features_from_model_collection(vmaf, NULL), -EINVAL);
  CHECK_RC(vmaf_import_feature_score(vmaf, NULL, 1.0, 0), -EINVAL);

  /* No feature registered: the first picture fails (and is taken). */
  CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, 0), -EINVAL);
  CHECK(ref.ref == NULL && dist.ref == NULL);
  CHECK_RC(vmaf_close(vmaf), 0);
  CHECK_RC(vmaf_close(vmaf), -EINVAL); /* double close */

  vmaf = open_context(2, 1);
  d = NULL;
  vmaf_feature_dictionary_set(&d, "enable_chroma", "false");
  CHECK_RC(vmaf_use_feature(vmaf, "psnr", d), 0); /* d now belongs to the context */
  /* one NULL, one picture: an error, the picture taken */
  CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, &ref, NULL, 0), -EINVAL);
  CHECK(ref.ref == NULL);
  CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, NULL, &dist, 0), -EINVAL);
  /* the same picture as both */
  CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, &ref, &ref, 0), -EINVAL);
  CHECK(ref.ref == NULL);
  /* a picture not from vmaf_picture_alloc */
  VmafPicture fake;
  memset(&fake, 0, sizeof fake);
  CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, &fake, &dist, 0), -EINVAL);
  /* fields changed after allocation */
  CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  ref.w[0] = 32;
  CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, 0), -EINVAL);
  /* Pairs of new pictures: ref and dist of different sizes, an index out of
   * order, a good pair, then pictures of another size, format or depth. */
  const struct {
    enum VmafPixelFormat fmt;
    unsigned bpc, w, h, dist_h, index;
    int rc;
  } pairs[] = {{VMAF_PIX_FMT_YUV420P, 8, 64, 64, 48, 0, -EINVAL}, {VMAF_PIX_FMT_YUV420P, 8, 64, 64, 64, 1, -EINVAL},
               {VMAF_PIX_FMT_YUV420P, 8, 64, 64, 64, 0, 0},       {VMAF_PIX_FMT_YUV420P, 8, 32, 32, 32, 1, -EINVAL},
               {VMAF_PIX_FMT_YUV444P, 8, 64, 64, 64, 1, -EINVAL}, {VMAF_PIX_FMT_YUV420P, 10, 64, 64, 64, 1, -EINVAL}};
  for (unsigned k = 0; k < sizeof pairs / sizeof pairs[0]; ++k) {
    CHECK_RC(vmaf_picture_alloc(&ref, pairs[k].fmt, pairs[k].bpc, pairs[k].w, pairs[k].h), 0);
    CHECK_RC(vmaf_picture_alloc(&dist, pairs[k].fmt, pairs[k].bpc, pairs[k].w, pairs[k].dist_h), 0);
    CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, pairs[k].index), pairs[k].rc);
    CHECK(ref.ref == NULL && dist.ref == NULL);
  }
  CHECK_RC(vmaf_use_feature(vmaf, "float_psnr", NULL), -EINVAL); /* after the first picture */

  /* scores of pictures not given, unknown names, bad pooling arguments */
  CHECK_RC(vmaf_feature_score_at_index(vmaf, "psnr_y", &score, 1), -EINVAL);
  CHECK_RC(vmaf_feature_score_at_index(vmaf, "psnr_y", NULL, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_at_index(vmaf, NULL, &score, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_at_index(vmaf, "psnr_y", &score, 0), 0); /* waits for picture 0 */
  CHECK_RC(vmaf_feature_score_at_index(vmaf, "no_such_metric", &score, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &score, 1, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_UNKNOWN, &score, 0, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_NB, &score, 0, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, NULL, 0, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, NULL, VMAF_POOL_METHOD_MEAN, &score, 0, 0), -EINVAL);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &score, 0, 0), 0);
  CHECK_RC(vmaf_write_output(vmaf, "/dev/null", VMAF_OUTPUT_FORMAT_JSON), -EINVAL); /* before the flush */
  CHECK_RC(vmaf_import_feature_score(vmaf, "psnr_y", 1.0, 0), -EINVAL);           /* computed there */

  CHECK_RC(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, NULL, NULL, 0), -EINVAL); /* flushed twice */
  CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, 1), -EINVAL); /* read after flush */
  CHECK(ref.ref == NULL && dist.ref == NULL);
  CHECK_RC(vmaf_write_output(vmaf, NULL, VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
  CHECK_RC(vmaf_write_output(vmaf, "/nonexistent/dir/log.json", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
  CHECK_RC(vmaf_write_output(vmaf, "/dev/null", VMAF_OUTPUT_FORMAT_NONE), -EINVAL);
  CHECK_RC(vmaf_write_output(vmaf, "/dev/null", (enum VmafOutputFormat)42), -EINVAL);
  CHECK_RC(vmaf_write_output(vmaf, "/dev/null", VMAF_OUTPUT_FORMAT_JSON), 0);
  CHECK_RC(vmaf_feature_score_at_index(vmaf, "psnr_y", &score, 1), -EINVAL);
  VmafModel *model = load_default_model();
  CHECK_RC(vmaf_score_at_index(vmaf, model, &score, 0), -EINVAL); /* its features were not computed */
  CHECK_RC(vmaf_score_at_index(vmaf, NULL, &score, 0), -EINVAL);
  CHECK_RC(vmaf_score_at_index(vmaf, model, NULL, 0), -EINVAL);
  CHECK_RC(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &score, 0, 0), -EINVAL);
  CHECK_RC(vmaf_score_pooled(vmaf, NULL, VMAF_POOL_METHOD_MEAN, &score, 0, 0), -EINVAL);
  vmaf_model_destroy(model);
  CHECK_RC(vmaf_close(vmaf), 0);

  /* A model destroyed before use: an error, not a crash. */
  vmaf = open_context(0, 1);
  model = load_default_model();
  vmaf_model_destroy(model);
  CHECK_RC(vmaf_use_features_from_model(vmaf, model), -EINVAL);
  CHECK_RC(vmaf_close(vmaf), 0);
}

/* psnr on the flat pair (luma off by one): the R golden, every method. */
static void test_feature_scores(void) {
  Clip flat = load_clip("flat_64x64_8b_420", 64, 64);
  VmafContext *vmaf = open_context(0, 1);
  CHECK_RC(vmaf_use_feature(vmaf, "psnr", NULL), 0);
  CHECK_RC(vmaf_import_feature_score(vmaf, "my_score", 7.5, 1), 0);
  CHECK_RC(vmaf_import_feature_score(vmaf, "my_score", 8.5, 1), -EINVAL); /* already there */
  read_clip(vmaf, &flat);
  double s = 0;
  for (unsigned i = 0; i < flat.frames; ++i) {
    CHECK_RC(vmaf_feature_score_at_index(vmaf, "psnr_y", &s, i), 0);
    CHECK_BITS(s, kFlatPsnrY);
    CHECK_RC(vmaf_feature_score_at_index(vmaf, "psnr_cb", &s, i), 0);
    CHECK_BITS(s, 60.0);
  }
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MIN, &s, 0, flat.frames - 1), 0);
  CHECK_BITS(s, kFlatPsnrY);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MAX, &s, 0, flat.frames - 1), 0);
  CHECK_BITS(s, kFlatPsnrY);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, flat.frames - 1), 0);
  CHECK_BITS(s, kFlatPsnrYMean);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_HARMONIC_MEAN, &s, 0, flat.frames - 1), 0);
  CHECK_BITS(s, kFlatPsnrYMean);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, flat.frames), -EINVAL);
  CHECK_RC(vmaf_feature_score_at_index(vmaf, "my_score", &s, 1), 0);
  CHECK_BITS(s, 7.5);
  CHECK_RC(vmaf_import_feature_score(vmaf, "late_score", 2.0, 0), 0); /* after the flush */
  CHECK_RC(vmaf_feature_score_at_index(vmaf, "late_score", &s, 0), 0);
  CHECK_BITS(s, 2.0);
  CHECK_RC(vmaf_close(vmaf), 0);
  free_clip(&flat);
}

/* The file starts as libvmaf's report of that format does. */
static void check_report(VmafContext *vmaf, enum VmafOutputFormat fmt, const char *start) {
  char path[256], head[64] = {0};
  snprintf(path, sizeof path, "/tmp/exactvmaf_api_test_%d.log", (int)getpid());
  CHECK_RC(vmaf_write_output(vmaf, path, fmt), 0);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  if (!f) return;
  const size_t n = fread(head, 1, strlen(start), f);
  fclose(f);
  unlink(path);
  CHECK(n == strlen(start) && memcmp(head, start, n) == 0);
}

/* The default model on c01: per-frame and pooled against the R golden. */
static void test_model_scores(void) {
  Clip c01 = load_clip("c01_176x144_8b_420", 176, 144);
  VmafModel *model = load_default_model();
  VmafContext *vmaf = open_context(0, 1);
  CHECK_RC(vmaf_use_features_from_model(vmaf, model), 0);
  double s = 0;
  for (unsigned i = 0; i < c01.frames; ++i) {
    VmafPicture ref, dist;
    CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, c01.w, c01.h), 0);
    CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, c01.w, c01.h), 0);
    fill(&ref, &c01, c01.ref, i);
    fill(&dist, &c01, c01.dist, i);
    CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, i), 0);
    if (i == 0) {
      /* A per-frame value of a picture already given: waits for it. */
      CHECK_RC(vmaf_feature_score_at_index(vmaf, "VMAF_integer_feature_adm2_score", &s, 0), 0);
      CHECK_BITS(s, kC01Adm2At0);
      CHECK_RC(vmaf_feature_score_at_index(vmaf, "integer_adm2", &s, 0), 0);
      CHECK_BITS(s, kC01Adm2At0);
      /* motion2 comes with the flush, so the VMAF score too (as libvmaf) */
      CHECK_RC(vmaf_score_at_index(vmaf, model, &s, 0), -EINVAL);
    }
  }
  CHECK_RC(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
  CHECK_RC(vmaf_score_at_index(vmaf, model, &s, 0), 0);
  CHECK_BITS(s, kC01Vmaf0);
  CHECK_RC(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s, 0, c01.frames - 1), 0);
  CHECK_BITS(s, kC01VmafMean);
  CHECK_RC(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MIN, &s, 0, c01.frames - 1), 0);
  CHECK_BITS(s, kC01VmafMin);
  CHECK_RC(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_HARMONIC_MEAN, &s, 0, c01.frames - 1), 0);
  CHECK_BITS(s, kC01VmafHarmonic);
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "vmaf", VMAF_POOL_METHOD_MEAN, &s, 0, c01.frames - 1), 0);
  CHECK_BITS(s, kC01VmafMean);
  CHECK_RC(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s, 0, c01.frames), -EINVAL);
  check_report(vmaf, VMAF_OUTPUT_FORMAT_JSON, "{\n  \"version\": \"");
  check_report(vmaf, VMAF_OUTPUT_FORMAT_XML, "<VMAF version=\"");
  check_report(vmaf, VMAF_OUTPUT_FORMAT_CSV, "Frame,");
  check_report(vmaf, VMAF_OUTPUT_FORMAT_SUB, "{0}{1}frame: 0|");
  CHECK_RC(vmaf_close(vmaf), 0);
  vmaf_model_destroy(model);
  free_clip(&c01);
}

/* The bootstrap model: member scores and statistics, pooled. */
static void test_collection_scores(void) {
  Clip c01 = load_clip("c01_176x144_8b_420", 176, 144);
  VmafModelConfig cfg = {NULL, 0};
  VmafModel *model = NULL;
  VmafModelCollection *collection = NULL;
  CHECK_RC(vmaf_model_collection_load(&model, &collection, &cfg, "vmaf_b_v0.6.3"), 0);
  VmafContext *vmaf = open_context(3, 1);
  CHECK_RC(vmaf_use_features_from_model(vmaf, model), 0);
  CHECK_RC(vmaf_use_features_from_model_collection(vmaf, collection), 0);
  read_clip(vmaf, &c01);
  VmafModelCollectionScore cs, pooled;
  CHECK_RC(vmaf_score_at_index_model_collection(vmaf, NULL, &cs, 0), -EINVAL);
  CHECK_RC(vmaf_score_at_index_model_collection(vmaf, collection, NULL, 0), -EINVAL);
  CHECK_RC(vmaf_score_at_index_model_collection(vmaf, collection, &cs, c01.frames), -EINVAL);
  double sum = 0, s = 0;
  for (unsigned i = 0; i < c01.frames; ++i) {
    CHECK_RC(vmaf_score_at_index_model_collection(vmaf, collection, &cs, i), 0);
    CHECK(cs.type == VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP);
    CHECK(cs.bootstrap.ci.p95.lo <= cs.bootstrap.bagging_score && cs.bootstrap.bagging_score <= cs.bootstrap.ci.p95.hi);
    CHECK_RC(vmaf_feature_score_at_index(vmaf, "vmaf_bagging", &s, i), 0);
    CHECK_BITS(s, cs.bootstrap.bagging_score);
    sum += cs.bootstrap.bagging_score;
  }
  CHECK_RC(vmaf_score_pooled_model_collection(vmaf, collection, VMAF_POOL_METHOD_MEAN, &pooled, 0, c01.frames - 1), 0);
  CHECK_BITS(pooled.bootstrap.bagging_score, sum / c01.frames); /* libvmaf's mean: a sum in frame order */
  CHECK_RC(vmaf_score_pooled_model_collection(vmaf, collection, VMAF_POOL_METHOD_UNKNOWN, &pooled, 0, 1), -EINVAL);
  CHECK_RC(vmaf_score_pooled_model_collection(vmaf, NULL, VMAF_POOL_METHOD_MEAN, &pooled, 0, 1), -EINVAL);
  CHECK_RC(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s, 0, c01.frames - 1), 0);
  CHECK_RC(vmaf_close(vmaf), 0);
  vmaf_model_destroy(model);
  vmaf_model_collection_destroy(collection);
  free_clip(&c01);
}

static void test_preallocated(void) {
  Clip flat = load_clip("flat_64x64_8b_420", 64, 64);
  VmafContext *vmaf = open_context(0, 1);
  VmafPicture ref, dist;
  VmafPictureConfiguration pc;
  memset(&pc, 0, sizeof pc);
  CHECK_RC(vmaf_fetch_preallocated_picture(vmaf, &ref), -EINVAL); /* none preallocated */
  CHECK_RC(vmaf_preallocate_pictures(NULL, pc), -EINVAL);
  CHECK_RC(vmaf_preallocate_pictures(vmaf, pc), -EINVAL); /* zero size, no count */
  pc.pic_params.w = 64;
  pc.pic_params.h = 64;
  pc.pic_params.bpc = 8;
  pc.pic_params.pix_fmt = VMAF_PIX_FMT_YUV420P;
  CHECK_RC(vmaf_preallocate_pictures(vmaf, pc), -EINVAL); /* pic_cnt 0 */
  pc.pic_cnt = 4;
  CHECK_RC(vmaf_preallocate_pictures(vmaf, pc), 0);
  CHECK_RC(vmaf_preallocate_pictures(vmaf, pc), -EINVAL); /* twice */
  CHECK_RC(vmaf_fetch_preallocated_picture(vmaf, NULL), -EINVAL);
  CHECK_RC(vmaf_use_feature(vmaf, "psnr", NULL), 0);
  for (unsigned i = 0; i < flat.frames; ++i) {
    CHECK_RC(vmaf_fetch_preallocated_picture(vmaf, &ref), 0);
    CHECK_RC(vmaf_fetch_preallocated_picture(vmaf, &dist), 0);
    fill(&ref, &flat, flat.ref, i);
    fill(&dist, &flat, flat.dist, i);
    CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, i), 0);
  }
  CHECK_RC(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
  double s = 0;
  CHECK_RC(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, flat.frames - 1), 0);
  CHECK_BITS(s, kFlatPsnrYMean);
  CHECK_RC(vmaf_close(vmaf), 0);
  free_clip(&flat);
}

/* Without a device (or CUDA in the build) the CUDA entry points fail
 * cleanly; host preallocation works without a state. */
static void test_cuda_entry_points(void) {
  VmafContext *vmaf = open_context(0, 1);
  VmafCudaState *state = NULL;
  VmafCudaConfiguration cc = {NULL};
  VmafCudaPictureConfiguration pc;
  memset(&pc, 0, sizeof pc);
  VmafPicture pic;
  CHECK_RC(vmaf_cuda_state_init(NULL, cc), -EINVAL);
  const int rc = vmaf_cuda_state_init(&state, cc);
  CHECK(rc == 0 || rc == -ENOSYS || rc == -ENODEV);
  if (rc == 0) {
    CHECK_RC(vmaf_cuda_import_state(NULL, state), -EINVAL);
    CHECK_RC(vmaf_cuda_import_state(vmaf, state), 0);
    free(state);
  }
  CHECK_RC(vmaf_cuda_import_state(vmaf, NULL), -EINVAL);
  CHECK_RC(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic), -EINVAL); /* not preallocated */
  pc.pic_prealloc_method = (enum VmafCudaPicturePreallocationMethod)9;
  CHECK_RC(vmaf_cuda_preallocate_pictures(vmaf, pc), -EINVAL);
  pc.pic_params.w = 64;
  pc.pic_params.h = 64;
  pc.pic_params.bpc = 8;
  pc.pic_params.pix_fmt = VMAF_PIX_FMT_YUV420P;
  pc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE;
  CHECK_RC(vmaf_cuda_preallocate_pictures(vmaf, pc), 0);
  CHECK_RC(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic), -EINVAL);
  if (rc != 0) {
    pc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
    CHECK_RC(vmaf_cuda_preallocate_pictures(vmaf, pc), -EINVAL); /* needs a state */
  }
  pc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST;
  CHECK_RC(vmaf_cuda_preallocate_pictures(NULL, pc), -EINVAL);
  CHECK_RC(vmaf_cuda_preallocate_pictures(vmaf, pc), 0);
  CHECK_RC(vmaf_cuda_fetch_preallocated_picture(NULL, &pic), -EINVAL);
  CHECK_RC(vmaf_cuda_fetch_preallocated_picture(vmaf, NULL), -EINVAL);
  CHECK_RC(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic), 0);
  CHECK(pic.w[0] == 64 && pic.data[0] != NULL);
  CHECK_RC(vmaf_picture_unref(&pic), 0);
  CHECK_RC(vmaf_close(vmaf), 0);
}

/* ---- the caller's FP environment, and two contexts at once --------------- */

/* Per-frame VMAF and psnr_y of c01 with `threads`, into out[2 * frames]. */
static void score_c01(const Clip *c01, unsigned threads, double *out) {
  VmafModel *model = load_default_model();
  VmafContext *vmaf = open_context(threads, 1);
  CHECK_RC(vmaf_use_features_from_model(vmaf, model), 0);
  CHECK_RC(vmaf_use_feature(vmaf, "psnr", NULL), 0);
  read_clip(vmaf, c01);
  for (unsigned i = 0; i < c01->frames; ++i) {
    CHECK_RC(vmaf_score_at_index(vmaf, model, &out[2 * i], i), 0);
    CHECK_RC(vmaf_feature_score_at_index(vmaf, "psnr_y", &out[2 * i + 1], i), 0);
  }
  CHECK_RC(vmaf_close(vmaf), 0);
  vmaf_model_destroy(model);
}

static void test_fp_environment(void) {
  Clip c01 = load_clip("c01_176x144_8b_420", 176, 144);
  double *plain = calloc(2 * c01.frames, sizeof(double));
  double *odd = calloc(2 * c01.frames, sizeof(double));
  score_c01(&c01, 2, plain);
  CHECK_BITS(plain[0], kC01Vmaf0);
  /* The caller computes with FTZ and DAZ on and rounding upward. */
  CHECK(fesetround(FE_UPWARD) == 0);
#if defined(__x86_64__)
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(csr | 0x8040u); /* FTZ (bit 15) and DAZ (bit 6) */
#endif
  score_c01(&c01, 2, odd);
  CHECK(fegetround() == FE_UPWARD); /* restored for the caller */
#if defined(__x86_64__)
  CHECK((_mm_getcsr() & 0x8040u) == 0x8040u);
  _mm_setcsr(csr);
#endif
  fesetround(FE_TONEAREST);
  for (unsigned i = 0; i < 2 * c01.frames; ++i) CHECK_BITS(odd[i], plain[i]);
  free(plain);
  free(odd);
  free_clip(&c01);
}

typedef struct {
  const Clip *clip;
  unsigned threads;
  double *out;
} Job;

static void *run_job(void *arg) {
  Job *job = arg;
  score_c01(job->clip, job->threads, job->out);
  return NULL;
}

static void test_two_contexts_at_once(void) {
  Clip c01 = load_clip("c01_176x144_8b_420", 176, 144);
  const size_t n = 2 * c01.frames;
  double *alone = calloc(n, sizeof(double)), *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
  score_c01(&c01, 1, alone);
  Job ja = {&c01, 1, a}, jb = {&c01, 3, b};
  pthread_t ta, tb;
  CHECK(pthread_create(&ta, NULL, run_job, &ja) == 0);
  CHECK(pthread_create(&tb, NULL, run_job, &jb) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  for (size_t i = 0; i < n; ++i) {
    CHECK_BITS(a[i], alone[i]);
    CHECK_BITS(b[i], alone[i]);
  }
  free(alone);
  free(a);
  free(b);
  free_clip(&c01);
}

/* ---- $EXACTVMAF_DEVICE_FP64 --------------------------------------------- */

/* stderr (the library's log) goes to a file between the two calls; the
 * checks that fail meanwhile are printed with what was captured. */
static int g_saved_stderr = -1, g_failures_before_capture;
static char g_capture_path[256];

static void begin_capture(void) {
  snprintf(g_capture_path, sizeof g_capture_path, "/tmp/exactvmaf_api_test_%d.stderr", (int)getpid());
  fflush(stderr);
  g_saved_stderr = dup(2);
  FILE *f = fopen(g_capture_path, "w");
  CHECK(f != NULL);
  if (f) {
    dup2(fileno(f), 2);
    fclose(f);
  }
  g_failures_before_capture = g_failures;
}

static char *end_capture(void) {
  fflush(stderr);
  dup2(g_saved_stderr, 2);
  close(g_saved_stderr);
  char *text = read_text(g_capture_path);
  unlink(g_capture_path);
  if (g_failures != g_failures_before_capture) fprintf(stderr, "captured stderr:\n%s", text ? text : "");
  return text ? text : calloc(1, 1);
}

/* c01 with the default model and float_adm (fp64 islands in adm, vif and
 * float_adm) at log level info: the full-precision JSON report, fps blanked,
 * and the library's log. The pooled VMAF is checked against R. */
static char *run_c01_logged(const Clip *c01, char **log) {
  char path[256];
  snprintf(path, sizeof path, "/tmp/exactvmaf_api_test_%d.json", (int)getpid());
  begin_capture();
  VmafConfiguration cfg = config(2, 1);
  cfg.log_level = VMAF_LOG_LEVEL_INFO;
  VmafContext *vmaf = NULL;
  CHECK_RC(vmaf_init(&vmaf, cfg), 0);
  VmafModel *model = load_default_model();
  CHECK_RC(vmaf_use_features_from_model(vmaf, model), 0);
  CHECK_RC(vmaf_use_feature(vmaf, "float_adm", NULL), 0);
  read_clip(vmaf, c01);
  double mean = 0;
  CHECK_RC(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &mean, 0, c01->frames - 1), 0);
  CHECK_BITS(mean, kC01VmafMean);
  CHECK_RC(vmaf_write_output(vmaf, path, VMAF_OUTPUT_FORMAT_JSON), 0);
  CHECK_RC(vmaf_close(vmaf), 0);
  vmaf_model_destroy(model);
  *log = end_capture();
  char *report = read_text(path);
  unlink(path);
  CHECK(report != NULL && strstr(report, "\"adm2\"") != NULL); /* float_adm's */
  if (!report) return calloc(1, 1);
  blank_fps(report);
  return report;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; ++s) n += *s == '\n';
  return n;
}

/* A bad value is refused at the first picture with one line naming it; off
 * on the CPU runs the fp64-free arithmetic there (the info line says so) and
 * writes the default's report byte for byte. Last: off stays on in the
 * process. */
static void test_device_fp64_variable(void) {
  unsetenv("EXACTVMAF_BACKEND");
  setenv("EXACTVMAF_DEVICE_FP64", "maybe", 1);
  begin_capture();
  VmafConfiguration cfg = config(0, 1);
  cfg.log_level = VMAF_LOG_LEVEL_ERROR;
  VmafContext *vmaf = NULL;
  CHECK_RC(vmaf_init(&vmaf, cfg), 0);
  CHECK_RC(vmaf_use_feature(vmaf, "psnr", NULL), 0);
  VmafPicture ref, dist;
  CHECK_RC(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 64), 0);
  CHECK_RC(vmaf_read_pictures(vmaf, &ref, &dist, 0), -EINVAL);
  CHECK(ref.ref == NULL && dist.ref == NULL);
  CHECK_RC(vmaf_close(vmaf), 0);
  char *log = end_capture();
  CHECK(strstr(log, "error: vmaf_read_pictures: EXACTVMAF_DEVICE_FP64=maybe: expected auto, on or off\n") != NULL);
  CHECK(count_lines(log) == 1);
  if (count_lines(log) != 1) fprintf(stderr, "log of the refused value:\n%s", log);
  free(log);

  Clip c01 = load_clip("c01_176x144_8b_420", 176, 144);
  setenv("EXACTVMAF_PRECISION", "max", 1);
  unsetenv("EXACTVMAF_DEVICE_FP64");
  char *plain_log, *plain = run_c01_logged(&c01, &plain_log);
  CHECK(strstr(plain_log, " on cpu (2 threads)\n") != NULL);
  const char *values[] = {"auto", "on", "off"};
  for (unsigned k = 0; k < 3; ++k) {
    setenv("EXACTVMAF_DEVICE_FP64", values[k], 1);
    char *report = run_c01_logged(&c01, &log);
    const int off = strcmp(values[k], "off") == 0;
    const int said = strstr(log, off ? " on cpu (2 threads, fp64-free arithmetic)\n" : " on cpu (2 threads)\n") != NULL;
    CHECK(said);
    const int same = strcmp(report, plain) == 0;
    CHECK(same);
    if (!said || !same) fprintf(stderr, "EXACTVMAF_DEVICE_FP64=%s: log:\n%s", values[k], log);
    free(report);
    free(log);
  }
  unsetenv("EXACTVMAF_DEVICE_FP64");
  unsetenv("EXACTVMAF_PRECISION");
  free(plain);
  free(plain_log);
  free_clip(&c01);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s FIXTURES_DIR MODEL_DIR\n", argv[0]);
    return 2;
  }
  g_fixtures = argv[1];
  g_models = argv[2];
  test_version();
  test_dictionary();
  test_pictures();
  test_models();
  test_context_errors();
  test_feature_scores();
  test_model_scores();
  test_collection_scores();
  test_preallocated();
  test_cuda_entry_points();
  test_fp_environment();
  test_two_contexts_at_once();
  test_device_fp64_variable();
  printf("api_test: %d checks, %d failed\n", g_checks, g_failures);
  return g_failures ? 1 : 0;
}
