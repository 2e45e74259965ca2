// VMAF prediction against the golden runs named vmaf* (tests/golden/README.md):
// alone (the golden's own feature values fed to the predictor) and end to end
// (a whole run through the library), bit for bit against R, every frame and
// pooled value; the distance to plain upstream is measured.
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>
#include <set>

#include "model/model_detail.hpp"
#include "model/model_support.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"

namespace exactvmaf::test {
namespace {

struct ModelCase {
  std::string pair, run;
};

std::vector<ModelCase> model_cases() {
  std::vector<ModelCase> out;
  for (const auto& pair : fixture_pairs())
    for (const auto& [run, _] : model_runs())
      if (std::filesystem::exists(golden_dir() / "r" / pair.name / (run + ".json"))) out.push_back({pair.name, run});
  return out;
}

// A stable parameter text (ctest's test names include it).
void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.pair << "/" << c.run; }

std::string case_name(const ModelCase& c) { return golden_case_name({c.pair, c.run}); }

// Metric name of a model feature. Registered extractors name it themselves
// (model_feature_metric); for one not registered yet (adm, vif while they are
// being written) the name is built from the two option-suffixes the v0.6.x
// models and the golden runs use (adm/vif_enhn_gain_limit, alias egl, default 100).
std::string metric_of(const ModelFeature& f) {
  if (find_feature(f.extractor)) return model_feature_metric(f);
  std::string name(model_detail::feature_alias(f.name));
  auto opts = f.options;
  std::sort(opts.begin(), opts.end());
  for (const auto& [k, v] : opts) {
    if (k != "adm_enhn_gain_limit" && k != "vif_enhn_gain_limit") continue;
    const double d = std::stod(v);
    if (d == 100.0) continue;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", d);
    name += std::string("_egl_") + buf;
  }
  return name;
}

// Every output name the models append.
std::set<std::string> model_outputs(const std::vector<Model>& models) {
  std::set<std::string> out;
  for (const auto& m : models) {
    out.insert(m.main.name);
    for (const auto& b : m.bootstrap) out.insert(b.name);
    if (!m.bootstrap.empty())
      for (const char* s : {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"}) out.insert(m.collection_name + s);
  }
  return out;
}

void report_upstream_distance(const ModelCase& mc, const RunResult& ours, unsigned subsample) {
  const auto up = golden_dir() / "upstream" / mc.pair / (mc.run + ".json");
  if (!std::filesystem::exists(up)) return;
  const GoldenComparison d = compare_with_golden(read_json(up), ours, subsample);
  std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream (max %lld ulp)\n", mc.pair.c_str(),
              mc.run.c_str(), d.differing, d.values, static_cast<long long>(d.max_ulps));
}

class PredictGolden : public ::testing::TestWithParam<ModelCase> {};

TEST_P(PredictGolden, GoldenFeaturesGiveRsScoresBitForBit) {
  EXACTVMAF_REQUIRE_MODELS();
  const ModelCase& mc = GetParam();
  const ModelRun& run = model_runs().at(mc.run);
  const auto pair = fixture_pair(mc.pair);
  ASSERT_TRUE(pair);
  const std::vector<Model> models = load_models(model_specs(run), {});
  const auto outputs = model_outputs(models);

  const auto r_path = golden_dir() / "r" / mc.pair / (mc.run + ".json");
  const auto r = read_json(r_path);
  const auto order = golden_metric_names(r_path);
  RunResult ours;
  ours.frames = pair->frames;
  for (const auto& name : order) {
    if (outputs.count(name)) continue;
    const std::size_t id = ours.scores.add_metric(name);
    for (const auto& frame : r.at("frames")) ours.scores.set(id, frame.at("frameNum"), frame.at("metrics").at(name));
  }
  predict(models, ours.scores, ours.frames, run.subsample, metric_of);

  std::vector<std::string> ours_order;
  for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) ours_order.push_back(ours.scores.metric_name(id));
  EXPECT_EQ(ours_order, order) << "metric order differs from libvmaf's";
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  // Frames --subsample leaves out are not predicted.
  if (run.subsample > 1) {
    EXPECT_FALSE(ours.scores.written(*ours.scores.find_metric(models[0].main.name), 1));
  }
  report_upstream_distance(mc, ours, run.subsample);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PredictGolden, ::testing::ValuesIn(model_cases()),
                         [](const auto& i) { return case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PredictGolden);

TEST(PredictGoldenSet, IsPresent) { EXPECT_GE(model_cases().size(), 40u); }

// Every v1.0.16 model has goldens, the HFR ones on a pair of at least five
// frames (their five-frame motion window), all of them on the 1080p pair.
TEST(PredictGoldenSet, CoversEveryV1Model) {
  for (const char* m : {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_1d5h_2160",
                        "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h", "vmaf_v1.0.16_hfr_3d0h_2160",
                        "vmaf_v1.0.16_hfr_1d5h_2160"}) {
    bool long_clip = false, hd = false;
    for (const auto& c : model_cases()) {
      if (c.run != m) continue;
      long_clip = long_clip || fixture_pair(c.pair)->frames >= 5;
      hd = hd || c.pair == "b02_1920x1080_8b_420";
    }
    EXPECT_TRUE(long_clip) << m;
    EXPECT_TRUE(hd) << m;
  }
}

class EndToEndGolden : public ::testing::TestWithParam<ModelCase> {};

TEST_P(EndToEndGolden, WholeRunWithModelsEqualsR) {
  EXACTVMAF_REQUIRE_MODELS();
  for (const char* f : {"adm", "vif", "motion"})
    if (!find_feature(f)) GTEST_SKIP() << "feature " << f << " is not registered yet: the end-to-end model test waits for it";
  const ModelCase& mc = GetParam();
  const ModelRun& run = model_runs().at(mc.run);
  const auto pair = fixture_pair(mc.pair);
  ASSERT_TRUE(pair);
  const std::vector<Model> models = load_models(model_specs(run), {});
  std::vector<FeatureRequest> user;
  for (const auto& f : run.features) user.push_back(parse_feature_request(f));
  auto ref = open_fixture(*pair, true);
  auto dist = open_fixture(*pair, false);
  RunOptions opts;
  opts.subsample = run.subsample;
  RunResult ours = exactvmaf::run(*ref, *dist, model_feature_requests(models, std::move(user)), opts);
  predict(models, ours.scores, ours.frames, run.subsample);

  const auto r_path = golden_dir() / "r" / mc.pair / (mc.run + ".json");
  const GoldenComparison vs_r = compare_with_golden(read_json(r_path), ours, run.subsample);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  // The model outputs come last, in libvmaf's order. (The features' order is
  // the pipeline's: libvmaf lists metrics in first-write order, which puts
  // integer_motion2/3, written at flush, after every per-frame feature.)
  const auto golden_order = golden_metric_names(r_path);
  const auto outputs = model_outputs(models);
  std::vector<std::string> ours_tail;
  for (std::size_t id = ours.scores.metric_count() - outputs.size(); id < ours.scores.metric_count(); ++id)
    ours_tail.push_back(ours.scores.metric_name(id));
  EXPECT_EQ(ours_tail, std::vector<std::string>(golden_order.end() - static_cast<std::ptrdiff_t>(outputs.size()),
                                                golden_order.end()));
  std::vector<std::string> ours_order;
  for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) ours_order.push_back(ours.scores.metric_name(id));
  if (ours_order != golden_order) std::printf("[ note ] %s/%s: feature order differs from libvmaf's\n", mc.pair.c_str(), mc.run.c_str());
  report_upstream_distance(mc, ours, run.subsample);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EndToEndGolden, ::testing::ValuesIn(model_cases()),
                         [](const auto& i) { return case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EndToEndGolden);

// ---- prediction details on small hand-made models ------------------------------

SvrModel tiny_model() {
  SvrModel m;
  m.name = "t";
  m.norm = NormType::linear_rescale;
  m.slope = 0.5;
  m.intercept = -1.0;
  m.features = {{"VMAF_integer_feature_adm2_score", "adm", {}, 2.0, 0.25},
                {"VMAF_integer_feature_motion2_score", "motion", {}, 1.0, 0.0}};
  m.svm.gamma = 0.5;
  m.svm.rho = 0.125;
  m.svm.coef = {2.0, -1.0};
  m.svm.sv_start = {0, 3};
  m.svm.nodes = {{1, 1.0}, {2, 0.5}, {-1, 0}, {2, 1.0}, {-1, 0}};  // second vector leaves index 1 out (0)
  return m;
}

TEST(Predict, SvmNormalisationAndSparseVectors) {
  const SvrModel m = tiny_model();
  const double x1 = 2.0 * 0.5 + 0.25, x2 = 1.0 * 2.0 + 0.0;  // normalised features
  const double d1 = (x1 - 1.0) * (x1 - 1.0) + (x2 - 0.5) * (x2 - 0.5);
  const double d2 = x1 * x1 + (x2 - 1.0) * (x2 - 1.0);
  double svm = 0;
  svm += 2.0 * std::exp(-0.5 * d1);
  svm += -1.0 * std::exp(-0.5 * d2);
  svm -= 0.125;
  const double expected = (svm - -1.0) / 0.5;
  const double values[] = {0.5, 2.0};
  // exp here is glibc's: equal to R's except in rare last bits.
  EXPECT_NEAR(predict_score(m, values), expected, 1e-12);
}

TEST(Predict, TransformThenClipInUpstreamOrder) {
  SvrModel m = tiny_model();
  const double values[] = {0.5, 2.0};
  const double raw = predict_score(m, values);
  m.transform.enabled = true;
  m.transform.p0_enabled = m.transform.p1_enabled = m.transform.p2_enabled = true;
  m.transform.p0 = 1.0;
  m.transform.p1 = 2.0;
  m.transform.p2 = -0.5;
  const double poly = ((0. + 1.0) + 2.0 * raw) + -0.5 * raw * raw;
  EXPECT_EQ(predict_score(m, values), poly);
  EXPECT_EQ(predict_score(m, values, false, true), raw);
  m.transform.out_gte_in = true;  // rectification against the input
  EXPECT_EQ(predict_score(m, values), poly < raw ? raw : poly);
  m.clip_enabled = true;
  m.clip_min = raw + 1;
  m.clip_max = raw + 2;
  EXPECT_EQ(predict_score(m, values), raw + 1);
  EXPECT_EQ(predict_score(m, values, true), poly < raw ? raw : poly);
  // Piecewise-linear knots after the polynomial.
  m.clip_enabled = false;
  m.transform.out_gte_in = false;
  m.transform.p0_enabled = m.transform.p1_enabled = m.transform.p2_enabled = false;
  m.transform.knots_enabled = true;
  m.transform.knots = {{raw - 10, 0.0}, {raw + 10, 20.0}};
  EXPECT_EQ(predict_score(m, values), 1.0 * raw + (0.0 - (raw - 10) * 1.0));
}

TEST(Predict, MissingFeatureValueIsAnError) {
  std::vector<Model> models(1);
  models[0].main = tiny_model();
  ScoreTable table;
  const auto id = table.add_metric("integer_adm2");
  table.set(id, 0, 0.5);
  auto e = error_of([&] { predict(models, table, 1, 1, metric_of); });
  EXPECT_NE(e.find("integer_motion2"), std::string::npos) << e;
  const auto m2 = table.add_metric("integer_motion2");
  table.set(m2, 0, 1.0);
  e = error_of([&] { predict(models, table, 2, 1, metric_of); });
  EXPECT_NE(e.find("at frame 1"), std::string::npos) << e;
}

}  // namespace
}  // namespace exactvmaf::test
