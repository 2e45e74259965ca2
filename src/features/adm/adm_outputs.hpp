// The adm and float_adm outputs of one frame in their slots (libvmaf's
// order; the two extractors list the same outputs), shared by the CPU and
// CUDA workers.
#pragma once
#include "exactvmaf/feature.hpp"
#include "features/adm/adm_common.hpp"

namespace exactvmaf::adm {

inline void write_frame_outputs(const FrameScores& fs, bool debug, FrameOutput& out) {
  unsigned slot = 0;
  out.set(slot++, fs.adm2);
  out.set(slot++, fs.aim);
  out.set(slot++, fs.adm3);
  for (int s = 0; s < 4; ++s) out.set(slot++, fs.scale_num[s] / fs.scale_den[s]);
  if (!debug) return;
  out.set(slot++, fs.adm2);
  out.set(slot++, fs.num);
  out.set(slot++, fs.den);
  for (int s = 0; s < 4; ++s) {
    out.set(slot++, fs.scale_num[s]);
    out.set(slot++, fs.scale_den[s]);
  }
}

}  // namespace exactvmaf::adm
