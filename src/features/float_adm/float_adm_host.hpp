// Float ADM on the host (docs/design.md, "The feature template"): the run's
// Config, the output names, and the CPU's frame computation, shared by the
// CPU worker and the CUDA worker (which recomputes a frame on the host when
// the device could not decide a powf term). The outputs are written by
// common/adm_common.hpp, as integer adm's.
#pragma once
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/common/adm_common.hpp"
#include "features/float_adm/float_adm_math.hpp"
#include "features/float_adm/float_adm_simd.hpp"

namespace exactvmaf::float_adm {

struct Config {
  bool debug = false, skip_scale0 = false, bypass_cm = false;
  double gain_limit = 100.0, noise_weight = 0.03125, p_norm = 3.0;
  FrameOptions frame;
  CsfOptions csf;
  float rfactor[num_scales][3] = {};
  unsigned w = 0, h = 0, bpc = 8;
};

// The options of --feature float_adm (float_adm_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Checks the format (Error naming float_adm), fills the format-dependent
// fields and returns the output names in libvmaf's order (float_adm_cpu.cpp).
std::vector<std::string> init(Config& c, const OptionValues& o, const VideoFormat& fmt);

// One frame on the CPU, with scratch planes kept between frames; the row
// kernels of the SIMD level allowed when it is made (same bits at every level).
class CpuFrame {
 public:
  explicit CpuFrame(const Config& c) : c_(c), k_(kernels_for(simd_level())) {}
  FrameScores compute(const PictureView& ref, const PictureView& dist);

 private:
  struct BandSet {
    std::vector<float> h, v, d;
    Bands3<float> view(std::ptrdiff_t s) { return {h.data(), v.data(), d.data(), s}; }
    Bands3<const float> cview(std::ptrdiff_t s) const { return {h.data(), v.data(), d.data(), s}; }
  };
  void allocate();
  void load(const PictureView& pic, std::vector<float>& dst) const;
  void dwt(const float* src, int w, int h, std::vector<float>& a, BandSet& bands);
  void scale(int s, int w, int h, float* num, float* den, float* aim);

  const Config& c_;
  const Kernels& k_;
  bool allocated_ = false;
  std::ptrdiff_t stride_ = 0;
  std::vector<float> ref0_, dis0_, lo_, hi_;
  std::vector<float> ref_a_[2], dis_a_[2];
  int cur_ = 0;
  BandSet ref_, dis_, r_, a_, csf_a_, csf_f_;
};

using adm::write_frame_outputs;  // the same outputs as integer adm

}  // namespace exactvmaf::float_adm
