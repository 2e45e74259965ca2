// VMAF prediction as libvmaf's predict.c and libsvm's svm_predict compute it:
// the same operations in the same order on doubles, with R's correctly
// rounded exp in the RBF kernel.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/model.hpp"
#include "model/model_detail.hpp"
#include "numeric/cr_exp.hpp"
#include "numeric/fpenv.hpp"

namespace exactvmaf {

namespace {

// libsvm Kernel::k_function, RBF: squared distance over the sparse vectors
// (an index missing from one vector counts as 0), then exp(-gamma * sum).
double rbf_kernel(const SvmNode* x, const SvmNode* y, double gamma) {
  double sum = 0;
  while (x->index != -1 && y->index != -1) {
    if (x->index == y->index) {
      const double d = x->value - y->value;
      sum += d * d;
      ++x;
      ++y;
    } else if (x->index > y->index) {
      sum += y->value * y->value;
      ++y;
    } else {
      sum += x->value * x->value;
      ++x;
    }
  }
  for (; x->index != -1; ++x) sum += x->value * x->value;
  for (; y->index != -1; ++y) sum += y->value * y->value;
  return rmath::cr_exp(-gamma * sum);
}

// libsvm svm_predict_values for a regression model.
double svm_predict(const SvmModel& m, const SvmNode* x) {
  double sum = 0;
  for (std::size_t i = 0; i < m.coef.size(); ++i) sum += m.coef[i] * rbf_kernel(x, &m.nodes[m.sv_start[i]], m.gamma);
  sum -= m.rho;
  return sum;
}

void normalize(const SvrModel& m, double slope, double intercept, double& v) {
  if (m.norm == NormType::linear_rescale) v = slope * v + intercept;
}

void denormalize(const SvrModel& m, double slope, double intercept, double& v) {
  if (m.norm == NormType::linear_rescale) v = (v - intercept) / slope;
}

// predict.c find_linear_function_parameters; false where upstream fails.
bool line_through(std::pair<double, double> p1, std::pair<double, double> p2, double& alpha, double& beta) {
  const auto [x1, y1] = p1;
  const auto [x2, y2] = p2;
  if (!(x1 <= x2 && y1 <= y2)) return false;
  if (x2 - x1 == 0 || y2 - y1 == 0) {
    if (!(x1 == x2 && y1 == y2)) return false;
    alpha = 1.0;
    beta = 0.0;
  } else if (x1 == 0) {
    beta = y1;
    alpha = (y2 - beta) / x2;
  } else {
    alpha = (y2 - y1) / (x2 - x1);
    beta = y1 - (x1 * alpha);
  }
  return true;
}

// predict.c piecewise_linear_mapping: leaves y alone for fewer than two
// knots; stops (keeping what it wrote) at the first non-increasing segment.
void piecewise_linear(double x, const std::vector<std::pair<double, double>>& knots, double& y) {
  if (knots.size() <= 1) return;
  const std::size_t n_seg = knots.size() - 1;
  double slope = 0.0, offset = 0.0;
  y = 0.0;
  for (std::size_t i = 0; i < n_seg; ++i) {
    const auto& a = knots[i];
    const auto& b = knots[i + 1];
    if (!(a.first < b.first && a.second <= b.second)) return;
    const bool cond0 = a.first <= x, cond1 = x <= b.first;
    if (a.second == b.second) {
      if (cond0 && cond1) y = a.second;
      if (i == 0 && x < a.first) y = a.second;
      if (i == n_seg - 1 && x > b.first) y = a.second;
    } else {
      line_through(a, b, slope, offset);
      if (cond0 && cond1) y = slope * x + offset;
      if (i == 0 && x < a.first) y = slope * x + offset;
      if (i == n_seg - 1 && x > b.first) y = slope * x + offset;
    }
  }
}

void transform(const SvrModel& m, double& y_in) {
  const ScoreTransform& t = m.transform;
  if (!t.enabled) return;
  double y_stage = y_in, y_out;
  if (t.p0_enabled || t.p1_enabled || t.p2_enabled) {
    y_out = 0.;
    if (t.p0_enabled) y_out += t.p0;
    if (t.p1_enabled) y_out += t.p1 * y_stage;
    if (t.p2_enabled) y_out += t.p2 * y_stage * y_stage;
  } else {
    y_out = y_stage;
  }
  y_stage = y_out;
  if (t.knots_enabled) piecewise_linear(y_stage, t.knots, y_out);
  else y_out = y_stage;
  if (t.out_lte_in) y_out = (y_out > y_in) ? y_in : y_out;
  if (t.out_gte_in) y_out = (y_out < y_in) ? y_in : y_out;
  y_in = y_out;
}

void clip(const SvrModel& m, double& v) {
  if (!m.clip_enabled) return;
  v = (v < m.clip_min) ? m.clip_min : v;
  v = (v > m.clip_max) ? m.clip_max : v;
}

// predict.c post_process_feature_from_another(model, node, c, 0.0, "adm3",
// "speed_chroma"): a chroma feature that is exactly 0 is replaced by
// c - c * adm3. Upstream reads uninitialised values when either feature is
// missing; R leaves the features alone then.
void chroma_from_luma(const SvrModel& m, std::vector<SvmNode>& node) {
  const std::size_t none = m.features.size();
  std::size_t guiding = none, guided = none;
  for (std::size_t i = 0; i < m.features.size(); ++i) {
    const std::string& name = m.features[i].name;
    if (name.find("adm3") != std::string::npos) {
      if (guiding != none) throw Error(fmt::format("model {}: several features match 'adm3'", m.name));
      guiding = i;
    }
    if (name.find("speed_chroma") != std::string::npos) {
      if (guided != none) throw Error(fmt::format("model {}: several features match 'speed_chroma'", m.name));
      guided = i;
      double score = node[i].value;
      denormalize(m, m.features[i].slope, m.features[i].intercept, score);
      if (!(score == 0.0)) return;
    }
  }
  if (guiding == none || guided == none) return;
  double guiding_score = node[guiding].value;
  denormalize(m, m.features[guiding].slope, m.features[guiding].intercept, guiding_score);
  double corrected = (-m.chroma_correction * guiding_score) + m.chroma_correction;
  normalize(m, m.features[guided].slope, m.features[guided].intercept, corrected);
  node[guided].value = corrected;
}

double percentile(const std::vector<double>& sorted, double perc) {
  const double p = perc * static_cast<double>(sorted.size() - 1) / 100.;
  const int lo = static_cast<int>(std::floor(p));
  const int hi = static_cast<int>(std::ceil(p));
  return lo == hi ? sorted[static_cast<std::size_t>(lo)]
                  : sorted[static_cast<std::size_t>(lo)] * (hi - p) + sorted[static_cast<std::size_t>(hi)] * (p - lo);
}

std::string where(const Model& m) { return m.label.empty() ? m.source : m.label; }

// The request for one model feature: its extractor with the model's options.
FeatureRequest feature_request(const ModelFeature& f, std::string_view model_source) {
  const FeatureInfo* info = find_feature(f.extractor);
  if (!info)
    throw Error(fmt::format("{}: feature {} (model feature {}) is not available yet in this version of exactvmaf",
                            model_source, f.extractor, f.name));
  FeatureRequest req{info, OptionValues(&info->options)};
  for (const auto& [k, v] : f.options) {
    try {
      req.options.set(f.extractor, k, v);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: model feature {}: {}", model_source, f.name, e.what()));
    }
  }
  return req;
}

// Metric ids of a model's features in `table`, checked.
std::vector<std::size_t> feature_ids(const SvrModel& m, const ScoreTable& table, const ModelFeatureNamer& metric_of) {
  std::vector<std::size_t> ids;
  for (const auto& f : m.features) {
    const std::string metric = metric_of ? metric_of(f) : model_feature_metric(f);
    const auto id = table.find_metric(metric);
    if (!id) throw Error(fmt::format("model {}: feature '{}' was not computed", m.name, metric));
    ids.push_back(*id);
  }
  return ids;
}

void gather(const SvrModel& m, const std::vector<std::size_t>& ids, const ScoreTable& table, std::uint64_t frame,
            std::vector<double>& out) {
  out.resize(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto v = table.get(ids[i], frame);
    if (!v)
      throw Error(fmt::format("model {}: no value of '{}' at frame {}", m.name, table.metric_name(ids[i]), frame));
    out[i] = *v;
  }
}

std::size_t output_metric(ScoreTable& table, const std::string& name) {
  if (table.find_metric(name)) throw Error(fmt::format("model output name '{}' is already a metric; rename the model with name=", name));
  return table.add_metric(name);
}

}  // namespace

std::string model_feature_metric(const ModelFeature& feature) {
  const FeatureRequest req = feature_request(feature, feature.name);
  return feature_output_name(model_detail::feature_alias(feature.name), req.options);
}

double predict_score(const SvrModel& m, std::span<const double> features, bool disable_clip, bool disable_transform) {
  if (features.size() != m.features.size())
    throw Error(fmt::format("model {}: {} feature values given, the model has {} features", m.name, features.size(),
                            m.features.size()));
  std::vector<SvmNode> node(features.size() + 1);
  for (std::size_t i = 0; i < features.size(); ++i) {
    double v = features[i];
    normalize(m, m.features[i].slope, m.features[i].intercept, v);
    node[i] = {static_cast<int>(i + 1), v};
  }
  node.back() = {-1, 0.0};
  if (m.chroma_correction_enabled && m.chroma_correction != 0) chroma_from_luma(m, node);
  double prediction = svm_predict(m.svm, node.data());
  denormalize(m, m.slope, m.intercept, prediction);
  if (!disable_transform) transform(m, prediction);
  if (!disable_clip) clip(m, prediction);
  return prediction;
}

std::vector<FeatureRequest> model_feature_requests(const std::vector<Model>& models, std::vector<FeatureRequest> user) {
  std::vector<FeatureRequest> out;
  std::vector<std::string> keys;
  auto add = [&](FeatureRequest req) {
    // libvmaf feature_extractor_vector_append: an extractor whose
    // option-suffixed name is already registered is not added again.
    std::string key = feature_output_name(req.info->name, req.options);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return;
    keys.push_back(std::move(key));
    out.push_back(std::move(req));
  };
  for (const auto& model : models) {
    for (const auto& f : model.main.features) add(feature_request(f, where(model)));
    for (const auto& b : model.bootstrap)
      for (const auto& f : b.features) add(feature_request(f, where(model)));
  }
  for (auto& u : user) add(std::move(u));
  return out;
}

void predict_model(const SvrModel& model, ScoreTable& table, std::uint64_t frames, unsigned subsample,
                   const ModelFeatureNamer& metric_of) {
  FpEnvGuard env;
  if (subsample == 0) subsample = 1;
  std::vector<double> values;
  const auto ids = feature_ids(model, table, metric_of);
  const std::size_t out = output_metric(table, model.name);
  for (std::uint64_t f = 0; f < frames; f += subsample) {
    gather(model, ids, table, f, values);
    table.set(out, f, predict_score(model, values));
  }
}

void predict_bootstrap(const Model& model, ScoreTable& table, std::uint64_t frames, unsigned subsample,
                       const ModelFeatureNamer& metric_of) {
  FpEnvGuard env;
  if (subsample == 0) subsample = 1;
  if (model.bootstrap.empty()) throw Error(fmt::format("model {}: not a bootstrap model", where(model)));
  std::vector<double> values;
  std::vector<std::vector<std::size_t>> ids;
  std::vector<std::size_t> outs;
  for (const auto& b : model.bootstrap) ids.push_back(feature_ids(b, table, metric_of));
  for (const auto& b : model.bootstrap) outs.push_back(output_metric(table, b.name));
  const std::string& name = model.collection_name;
  const std::size_t bagging_id = output_metric(table, name + "_bagging");
  const std::size_t stddev_id = output_metric(table, name + "_stddev");
  const std::size_t lo_id = output_metric(table, name + "_ci_p95_lo");
  const std::size_t hi_id = output_metric(table, name + "_ci_p95_hi");
  const SvrModel& first = model.bootstrap.front();
  const std::size_t cnt = model.bootstrap.size();
  std::vector<double> scores(cnt);
  for (std::uint64_t f = 0; f < frames; f += subsample) {
    for (std::size_t i = 0; i < cnt; ++i) {
      gather(model.bootstrap[i], ids[i], table, f, values);
      // Statistics use the untransformed, unclipped scores.
      scores[i] = predict_score(model.bootstrap[i], values, true, true);
      table.set(outs[i], f, predict_score(model.bootstrap[i], values));
    }
    double sum = 0.;
    for (double s : scores) sum += s;
    const double n = static_cast<double>(cnt);
    const double mean = sum / n;
    double bagging = mean;
    const double delta = 0.01;
    double plus_delta = mean + delta, minus_delta = mean - delta;
    double ssd = 0.;
    for (double s : scores) {
      const double d = s - mean;  // upstream pow(d, 2): gcc emits d * d
      ssd += d * d;
    }
    double stddev = std::sqrt(ssd / n);
    std::vector<double> sorted = scores;
    std::sort(sorted.begin(), sorted.end());
    double lo = percentile(sorted, 2.5), hi = percentile(sorted, 97.5);
    for (double* v : {&bagging, &lo, &hi, &plus_delta, &minus_delta}) {
      transform(first, *v);
      clip(first, *v);
    }
    const double slope = (plus_delta - minus_delta) / (2.0 * delta);
    stddev *= slope;
    table.set(bagging_id, f, bagging);
    table.set(stddev_id, f, stddev);
    table.set(lo_id, f, lo);
    table.set(hi_id, f, hi);
  }
}

void predict(const std::vector<Model>& models, ScoreTable& table, std::uint64_t frames, unsigned subsample,
             const ModelFeatureNamer& metric_of) {
  // libvmaf's CLI: every model's score over all frames, then every
  // bootstrap collection frame by frame.
  for (const auto& model : models) predict_model(model.main, table, frames, subsample, metric_of);
  for (const auto& model : models)
    if (!model.bootstrap.empty()) predict_bootstrap(model, table, frames, subsample, metric_of);
}

}  // namespace exactvmaf
