// Per-frame metric values, aggregates and libvmaf's pooling.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

enum class PoolMethod { min, max, mean, harmonic_mean };
const char* pool_method_name(PoolMethod m);

// Written by one thread (the pipeline commits frames in order); read after.
class ScoreTable {
 public:
  // Returns the id of `name`, adding it at the end of the metric order.
  std::size_t add_metric(std::string_view name);
  std::optional<std::size_t> find_metric(std::string_view name) const;
  std::size_t metric_count() const { return names_.size(); }
  const std::string& metric_name(std::size_t id) const { return names_[id]; }

  void set(std::size_t id, std::uint64_t frame, double value);
  std::optional<double> get(std::size_t id, std::uint64_t frame) const;
  bool written(std::size_t id, std::uint64_t frame) const;
  // One past the highest frame index written for any metric.
  std::uint64_t frame_capacity() const;

  // libvmaf lists metrics in the order they were first written (values
  // written at flush, such as motion2, after every per-frame value); run()
  // calls this after the flush. Metric ids change.
  void order_metrics_by_first_write();

  void set_aggregate(std::string_view name, double value);
  const std::vector<std::pair<std::string, double>>& aggregates() const { return aggregates_; }

  // libvmaf's vmaf_feature_score_pooled over frames [lo, hi] that are
  // multiples of `subsample` (when > 1), in frame order. nullopt where
  // libvmaf fails (a frame in range not written).
  std::optional<double> pooled(std::size_t id, PoolMethod m, std::uint64_t lo, std::uint64_t hi,
                               unsigned subsample) const;

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<double>> values_;
  std::vector<std::vector<std::uint8_t>> written_;
  std::vector<std::uint64_t> first_write_;  // write sequence number; max: never written
  std::uint64_t writes_ = 0;
  std::vector<std::pair<std::string, double>> aggregates_;
};

}  // namespace exactvmaf

#pragma GCC visibility pop
