// Frames are paired by index (as libvmaf pairs them). PairTiming checks that
// the pairs also agree in time where the inputs say when their frames are
// shown: their nominal frame rates, and per pair the presentation times
// (compressed input) or index / rate (y4m), each counted from the input's
// first scored frame. A disagreement is reported, never silently paired
// (docs/input.md, "Alignment").
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "exactvmaf/io.hpp"

namespace exactvmaf::pipeline {

class PairTiming {
 public:
  // `skipped_*`: frames skipped at the start of each input (--frame_skip_*).
  PairTiming(const VideoReader& ref, const VideoReader& dist, std::uint64_t skipped_ref, std::uint64_t skipped_dist);
  // One line when both inputs give a frame rate and the rates differ; empty otherwise.
  const std::string& rate_warning() const { return rate_warning_; }
  // Pair `index` (0 = first scored pair) with the frames' timestamps, when known.
  void pair(std::uint64_t index, std::optional<double> t_ref, std::optional<double> t_dist);
  // One line when some pairs are more than half a frame apart (not said
  // again when the rates differ: rate_warning() said it); empty otherwise.
  std::string summary_warning() const;

 private:
  std::optional<double> time_of(bool ref, std::uint64_t index, std::optional<double> t) const;
  std::string ref_path_, dist_path_;
  unsigned ref_num_, ref_den_, dist_num_, dist_den_;
  std::uint64_t skipped_ref_, skipped_dist_;
  std::string rate_warning_;
  double tolerance_ = 0;  // half the shorter nominal frame duration; 0: no check
  std::optional<double> first_ref_, first_dist_;
  std::uint64_t checked_ = 0, apart_ = 0;
  std::uint64_t first_apart_ = 0;
  double first_apart_ref_ = 0, first_apart_dist_ = 0;
};

}  // namespace exactvmaf::pipeline
