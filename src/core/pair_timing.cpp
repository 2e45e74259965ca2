#include "core/pair_timing.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace exactvmaf::pipeline {
namespace {

std::string rate_text(unsigned num, unsigned den) {
  if (den == 1) return fmt::format("{} fps", num);
  return fmt::format("{}/{} fps ({:.3f})", num, den, static_cast<double>(num) / den);
}

}  // namespace

PairTiming::PairTiming(const VideoReader& ref, const VideoReader& dist, std::uint64_t skipped_ref,
                       std::uint64_t skipped_dist)
    : ref_path_(ref.path()),
      dist_path_(dist.path()),
      ref_num_(ref.info().fps_num),
      ref_den_(ref.info().fps_den),
      dist_num_(dist.info().fps_num),
      dist_den_(dist.info().fps_den),
      skipped_ref_(skipped_ref),
      skipped_dist_(skipped_dist) {
  const bool ref_rate = ref_num_ && ref_den_, dist_rate = dist_num_ && dist_den_;
  if (ref_rate && dist_rate &&
      std::uint64_t{ref_num_} * dist_den_ != std::uint64_t{dist_num_} * ref_den_)
    rate_warning_ = fmt::format("\"{}\" is {} but \"{}\" is {}: frames are paired by index, not by time", ref_path_,
                                rate_text(ref_num_, ref_den_), dist_path_, rate_text(dist_num_, dist_den_));
  double shortest = 0;
  if (ref_rate) shortest = static_cast<double>(ref_den_) / ref_num_;
  if (dist_rate) {
    const double d = static_cast<double>(dist_den_) / dist_num_;
    shortest = shortest > 0 ? std::min(shortest, d) : d;
  }
  tolerance_ = shortest / 2;
}

std::optional<double> PairTiming::time_of(bool ref, std::uint64_t index, std::optional<double> t) const {
  if (t) return t;
  // No timestamp: the frame's place on the nominal grid (y4m).
  const unsigned num = ref ? ref_num_ : dist_num_, den = ref ? ref_den_ : dist_den_;
  if (!num || !den) return std::nullopt;
  const std::uint64_t n = (ref ? skipped_ref_ : skipped_dist_) + index;
  return static_cast<double>(n) * den / num;
}

void PairTiming::pair(std::uint64_t index, std::optional<double> t_ref, std::optional<double> t_dist) {
  if (tolerance_ <= 0 || (!t_ref && !t_dist)) return;  // neither input says when its frames are shown
  const auto r = time_of(true, index, t_ref), d = time_of(false, index, t_dist);
  if (!r || !d) return;
  if (!first_ref_) {
    first_ref_ = r;
    first_dist_ = d;
  }
  const double rr = *r - *first_ref_, dd = *d - *first_dist_;
  ++checked_;
  if (std::max(rr, dd) - std::min(rr, dd) > tolerance_) {
    if (apart_++ == 0) {
      first_apart_ = index;
      first_apart_ref_ = rr;
      first_apart_dist_ = dd;
    }
  }
}

std::string PairTiming::summary_warning() const {
  if (apart_ == 0 || !rate_warning_.empty()) return {};
  return fmt::format("frames paired by index are more than half a frame apart in time in {} of {} pairs (first: "
                     "pair {}, \"{}\" at {:.3f} s, \"{}\" at {:.3f} s, from each input's first scored frame): "
                     "variable frame rate, dropped or repeated frames? (--frame_skip_ref/--frame_skip_dist align "
                     "the starts)",
                     apart_, checked_, first_apart_, ref_path_, first_apart_ref_, dist_path_, first_apart_dist_);
}

}  // namespace exactvmaf::pipeline
