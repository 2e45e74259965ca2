// libFuzzer target: the libvmaf C API driven by call sequences. Each input
// byte picks a call (and the next bytes its arguments) among contexts,
// features, models, dictionaries and a few picture slots: any order, bad
// arguments included. Every call must return 0 or a negative errno value
// (never crash); whatever the sequence leaves open is closed at the end, so
// LeakSanitizer sees every leak.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <libvmaf/libvmaf.h>

namespace {

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  unsigned next() { return at_ < size_ ? data_[at_++] : 0u; }
  template <std::size_t N>
  const char* pick(const char* const (&table)[N]) { return table[next() % N]; }

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

const char* const kFeatures[] = {"psnr", "float_psnr", "motion", "null", "vif", "adm", "float_adm", "ciede",
                                 "speed_chroma", "speed_temporal", "motion_cuda", "float_ssim", "no_such", ""};
const char* const kKeys[] = {"enable_chroma", "enable_mse", "min_sse", "debug", "motion_force_zero",
                             "motion_five_frame_window", "adm_enhn_gain_limit", "vif_skip_scale0", "bad", ""};
const char* const kValues[] = {"true", "false", "0", "1", "1.5", "-3", "x", "1e309", "nan", ""};
const char* const kModels[] = {"vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_b_v0.6.3", "no_such_model", "../x", ""};
const char* const kMetrics[] = {"psnr_y", "psnr_cb", "vmaf", "integer_motion2", "VMAF_integer_feature_adm2_score",
                                "vmaf_bagging", "imported", ""};
const enum VmafPixelFormat kPixFmts[] = {VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P, VMAF_PIX_FMT_YUV444P,
                                         VMAF_PIX_FMT_YUV400P, VMAF_PIX_FMT_UNKNOWN};
const unsigned kBpc[] = {8, 10, 12, 16, 9};
constexpr unsigned kSlots = 4;
// Enough that the pipeline's held pictures (history) and the slots never use
// them all up, so a fetch never waits forever.
constexpr unsigned kPoolPictures = 12;

void check(int rc) {
  if (rc > 0 || rc < -4095) {
    std::fprintf(stderr, "libvmaf call returned %d: not 0 or a negative errno value\n", rc);
    std::abort();
  }
}

struct State {
  VmafContext* vmaf = nullptr;
  VmafModel* model = nullptr;
  VmafModel* main = nullptr;  // member 0 of the collection
  VmafModelCollection* collection = nullptr;
  VmafFeatureDictionary* dict = nullptr;
  VmafPicture pics[kSlots] = {};
  unsigned index = 0;

  void close_all() {
    if (vmaf) check(vmaf_close(vmaf));
    vmaf = nullptr;
    vmaf_model_destroy(model);
    vmaf_model_destroy(main);
    vmaf_model_collection_destroy(collection);
    model = main = nullptr;
    collection = nullptr;
    check(vmaf_feature_dictionary_free(&dict));
    for (auto& p : pics)
      if (p.ref) check(vmaf_picture_unref(&p));
  }
};

void step(State& s, Bytes& in) {
  double score = 0;
  VmafModelCollectionScore cs;
  switch (in.next() % 22) {
    case 0:
      if (!s.vmaf) {
        VmafConfiguration cfg{};
        cfg.log_level = VMAF_LOG_LEVEL_NONE;
        cfg.n_threads = in.next() % 4;
        cfg.n_subsample = in.next() % 4;
        cfg.cpumask = in.next() & 0x18u;
        s.index = 0;
        check(vmaf_init(&s.vmaf, cfg));
      }
      break;
    case 1:
      if (s.vmaf) check(vmaf_close(s.vmaf));
      s.vmaf = nullptr;
      break;
    case 2: {
      const int rc = vmaf_use_feature(s.vmaf, in.pick(kFeatures), s.dict);
      check(rc);
      if (rc == 0) s.dict = nullptr;  // the context took it
      break;
    }
    case 3: check(vmaf_feature_dictionary_set(&s.dict, in.pick(kKeys), in.pick(kValues))); break;
    case 4: check(vmaf_feature_dictionary_free(&s.dict)); break;
    case 5:
      if (!s.model) {
        VmafModelConfig cfg{in.next() % 2 ? nullptr : "vmaf", in.next() & 7u};
        check(vmaf_model_load(&s.model, &cfg, in.pick(kModels)));
      }
      break;
    case 6: check(vmaf_use_features_from_model(s.vmaf, s.model)); break;
    case 7:
      vmaf_model_destroy(s.model);
      s.model = nullptr;
      break;
    case 8: {
      VmafPicture& p = s.pics[in.next() % kSlots];
      if (p.ref) check(vmaf_picture_unref(&p));
      check(vmaf_picture_alloc(&p, kPixFmts[in.next() % 5], kBpc[in.next() % 5], in.next() % 48, in.next() % 48));
      break;
    }
    case 9: {  // fill a picture's samples with a pattern seeded by one byte
      VmafPicture& p = s.pics[in.next() % kSlots];
      const unsigned seed = in.next();
      if (!p.ref) break;
      const unsigned bytes = p.bpc > 8 ? 2 : 1, mask = (1u << p.bpc) - 1;
      for (unsigned plane = 0; plane < 3; ++plane)
        for (unsigned y = 0; y < p.h[plane]; ++y)
          for (unsigned x = 0; x < p.w[plane]; ++x) {
            auto* row = static_cast<std::uint8_t*>(p.data[plane]) + static_cast<std::ptrdiff_t>(y) * p.stride[plane];
            const unsigned v = (seed * 37u + x * 7u + y * 13u + plane + (x * y) % (seed + 1u)) & mask;
            if (bytes == 1) row[x] = static_cast<std::uint8_t>(v);
            else reinterpret_cast<std::uint16_t*>(row)[x] = static_cast<std::uint16_t>(v);
          }
      break;
    }
    case 10: {
      VmafPicture& a = s.pics[in.next() % kSlots];
      VmafPicture& b = s.pics[in.next() % kSlots];
      const unsigned index = in.next() % 8 == 0 ? in.next() : s.index;
      const int rc = vmaf_read_pictures(s.vmaf, &a, &b, index);
      check(rc);
      if (rc == 0) ++s.index;
      break;
    }
    case 11: check(vmaf_read_pictures(s.vmaf, nullptr, nullptr, 0)); break;
    case 12: check(vmaf_feature_score_at_index(s.vmaf, in.pick(kMetrics), &score, in.next() % 6)); break;
    case 13: check(vmaf_score_at_index(s.vmaf, s.model, &score, in.next() % 6)); break;
    case 14: {
      const auto method = static_cast<enum VmafPoolingMethod>(in.next() % 6);
      const unsigned lo = in.next() % 6, hi = in.next() % 6;
      if (in.next() % 2) check(vmaf_score_pooled(s.vmaf, s.model, method, &score, lo, hi));
      else check(vmaf_feature_score_pooled(s.vmaf, in.pick(kMetrics), method, &score, lo, hi));
      break;
    }
    case 15: check(vmaf_write_output(s.vmaf, "/dev/null", static_cast<enum VmafOutputFormat>(in.next() % 6))); break;
    case 16: check(vmaf_import_feature_score(s.vmaf, in.pick(kMetrics), in.next() * 0.25, in.next() % 6)); break;
    case 17: {
      VmafPicture& p = s.pics[in.next() % kSlots];
      check(p.ref ? vmaf_picture_unref(&p) : 0);
      break;
    }
    case 18: {
      VmafPictureConfiguration cfg{};
      cfg.pic_params.w = in.next() % 48;
      cfg.pic_params.h = in.next() % 48;
      cfg.pic_params.bpc = kBpc[in.next() % 5];
      cfg.pic_params.pix_fmt = kPixFmts[in.next() % 5];
      cfg.pic_cnt = kPoolPictures;
      check(vmaf_preallocate_pictures(s.vmaf, cfg));
      break;
    }
    case 19: {
      VmafPicture& p = s.pics[in.next() % kSlots];
      if (p.ref) check(vmaf_picture_unref(&p));
      check(vmaf_fetch_preallocated_picture(s.vmaf, &p));
      break;
    }
    case 20:
      if (!s.collection && !s.main) {
        VmafModelConfig cfg{nullptr, 0};
        check(vmaf_model_collection_load(&s.main, &s.collection, &cfg, in.pick(kModels)));
      }
      check(vmaf_use_features_from_model_collection(s.vmaf, s.collection));
      check(vmaf_score_at_index_model_collection(s.vmaf, s.collection, &cs, in.next() % 6));
      check(vmaf_score_pooled_model_collection(s.vmaf, s.collection, VMAF_POOL_METHOD_MEAN, &cs, 0, in.next() % 6));
      break;
    case 21: {
      const int rc = vmaf_model_feature_overload(s.model, in.pick(kFeatures), s.dict);
      check(rc);
      s.dict = nullptr;  // taken whatever happens
      break;
    }
  }
}

}  // namespace

// Quiet: the error lines are expected (the log level is process-wide).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  VmafConfiguration cfg{};
  cfg.log_level = VMAF_LOG_LEVEL_NONE;
  VmafContext* vmaf = nullptr;
  check(vmaf_init(&vmaf, cfg));
  check(vmaf_close(vmaf));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  State s;
  for (unsigned n = 0; n < 64 && !in.empty(); ++n) step(s, in);
  s.close_all();
  return 0;
}
