#include "exactvmaf/scores.hpp"

#include <algorithm>
#include <limits>

#include "numeric/fpenv.hpp"

namespace exactvmaf {

const char* pool_method_name(PoolMethod m) {
  switch (m) {
    case PoolMethod::min: return "min";
    case PoolMethod::max: return "max";
    case PoolMethod::mean: return "mean";
    case PoolMethod::harmonic_mean: return "harmonic_mean";
  }
  return "?";
}

std::size_t ScoreTable::add_metric(std::string_view name) {
  if (auto id = find_metric(name)) return *id;
  names_.emplace_back(name);
  values_.emplace_back();
  written_.emplace_back();
  first_write_.push_back(std::numeric_limits<std::uint64_t>::max());
  return names_.size() - 1;
}

std::optional<std::size_t> ScoreTable::find_metric(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  return std::nullopt;
}

void ScoreTable::set(std::size_t id, std::uint64_t frame, double value) {
  auto& v = values_[id];
  auto& w = written_[id];
  if (frame >= v.size()) {
    v.resize(frame + 1, 0.0);
    w.resize(frame + 1, 0);
  }
  v[frame] = value;
  w[frame] = 1;
  if (first_write_[id] == std::numeric_limits<std::uint64_t>::max()) first_write_[id] = writes_++;
}

void ScoreTable::order_metrics_by_first_write() {
  std::vector<std::size_t> order(names_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return first_write_[a] < first_write_[b]; });
  auto permute = [&](auto& v) {
    std::remove_reference_t<decltype(v)> out;
    out.reserve(v.size());
    for (std::size_t i : order) out.push_back(std::move(v[i]));
    v = std::move(out);
  };
  permute(names_);
  permute(values_);
  permute(written_);
  permute(first_write_);
}

bool ScoreTable::written(std::size_t id, std::uint64_t frame) const {
  return frame < written_[id].size() && written_[id][frame];
}

std::optional<double> ScoreTable::get(std::size_t id, std::uint64_t frame) const {
  if (!written(id, frame)) return std::nullopt;
  return values_[id][frame];
}

std::uint64_t ScoreTable::frame_capacity() const {
  std::uint64_t n = 0;
  for (const auto& v : values_)
    if (v.size() > n) n = v.size();
  return n;
}

void ScoreTable::set_aggregate(std::string_view name, double value) {
  for (auto& [n, v] : aggregates_)
    if (n == name) {
      v = value;
      return;
    }
  aggregates_.emplace_back(std::string(name), value);
}

std::optional<double> ScoreTable::pooled(std::size_t id, PoolMethod m, std::uint64_t lo,
                                         std::uint64_t hi, unsigned subsample) const {
  // libvmaf's vmaf_feature_score_pooled, statement for statement: sums in
  // frame order, the harmonic mean as n / sum(1 / (s + 1)) - 1.
  if (lo > hi) return std::nullopt;
  FpEnvGuard env;
  unsigned pic_cnt = 0;
  double min = 0., max = 0., sum = 0., i_sum = 0.;
  for (std::uint64_t i = lo; i <= hi; ++i) {
    if (subsample > 1 && (i % subsample)) continue;
    pic_cnt++;
    const auto s = get(id, i);
    if (!s) return std::nullopt;
    sum += *s;
    i_sum += 1. / (*s + 1.);
    if (i == lo || *s < min) min = *s;
    if (i == lo || *s > max) max = *s;
  }
  switch (m) {
    case PoolMethod::mean: return sum / pic_cnt;
    case PoolMethod::min: return min;
    case PoolMethod::max: return max;
    case PoolMethod::harmonic_mean: return pic_cnt / i_sum - 1.0;
  }
  return std::nullopt;
}

}  // namespace exactvmaf
