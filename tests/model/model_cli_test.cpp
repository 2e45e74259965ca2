// The CLI with models: -m path= / version= with --model_dir, the default
// model, --no_prediction, bootstrap outputs, and one-line errors. A small
// model over integer_motion2 alone runs end to end without adm and vif.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "model/model_support.hpp"
#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

struct CmdResult {
  int exit_code = -1;
  std::string out, err;
};

CmdResult cli(const std::string& args) {
  const auto out = model_temp_dir() / "stdout.txt", err = model_temp_dir() / "stderr.txt";
  const std::string cmd = std::string("'") + EXACTVMAF_CLI + "' " + args + " >'" + out.string() + "' 2>'" +
                          err.string() + "' </dev/null";
  const int status = std::system(cmd.c_str());
  CmdResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

void expect_clean_error(const CmdResult& r, const std::string& fragment) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, -1) << "killed by a signal";
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
  EXPECT_EQ(r.err.rfind("exactvmaf: error: ", 0), 0u) << r.err;
}

std::string fixture(const std::string& name) { return "'" + (fixtures_dir() / name).string() + "'"; }
const std::string kC01 = "-r " + fixture("c01_176x144_8b_420_ref.yuv") + " -d " +
                         fixture("c01_176x144_8b_420_dist.yuv") + " -w 176 -h 144 -p 420 -b 8";

// A LIBSVMNUSVR model over integer_motion2 with a transform and a clip.
std::string motion_model_json(double rho = 0.25) {
  nlohmann::ordered_json md;
  md["model_type"] = "LIBSVMNUSVR";
  md["norm_type"] = "linear_rescale";
  md["feature_names"] = {"VMAF_integer_feature_motion2_score"};
  md["slopes"] = {0.05, 0.1};
  md["intercepts"] = {-0.5, -0.2};
  md["score_clip"] = {0.0, 100.0};
  md["score_transform"] = {{"enabled", true}, {"p0", 1.5}, {"p1", 0.9}, {"p2", nullptr}};
  md["model"] = "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 3\nrho " + std::to_string(rho) +
                "\nSV\n1.5 1:0.3 \n-0.75 1:0.9 \n0.5 \n";
  return nlohmann::ordered_json{{"model_dict", md}}.dump(1);
}

std::filesystem::path motion_model() {
  return write_text(model_temp_dir() / "cli" / "motion_model.json", motion_model_json());
}

TEST(ModelCli, PathModelAddsVmafAfterItsFeatures) {
  const auto r = cli(kC01 + " -m path='" + motion_model().string() + "' --json -q --precision max");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  const auto& f0 = j.at("frames").at(0).at("metrics");
  std::vector<std::string> names;
  for (const auto& [k, v] : f0.items()) names.push_back(k);
  EXPECT_EQ(names, (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score", "integer_motion2",
                                             "integer_motion3", "vmaf"}));
  EXPECT_TRUE(j.at("pooled_metrics").contains("vmaf"));
  const Model m = load_model(parse_model_spec("path=" + motion_model().string()), {});
  for (const auto& frame : j.at("frames")) {
    const double m2 = frame.at("metrics").at("integer_motion2");
    const double expected = predict_score(m.main, std::vector<double>{m2});
    EXPECT_TRUE(same_bits(frame.at("metrics").at("vmaf").get<double>(), expected)) << frame.at("frameNum");
  }
}

TEST(ModelCli, VersionFromModelDirAndName) {
  const auto dir = model_temp_dir() / "cli_dir";
  write_text(dir / "sub" / "mymotion.json", motion_model_json());
  const auto r = cli(kC01 + " -m version=mymotion:name=mm --model_dir '" + dir.string() + "' --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("frames").at(0).at("metrics").contains("mm"));
  EXPECT_FALSE(j.at("frames").at(0).at("metrics").contains("vmaf"));
  // The same through the environment.
  const auto e = cli("-m version=mymotion " + kC01 + " --json -q");
  expect_clean_error(e, "mymotion: model not found");
  ::setenv("EXACTVMAF_MODEL_DIR", dir.string().c_str(), 1);
  const auto r2 = cli(kC01 + " -m version=mymotion --json -q");
  ::unsetenv("EXACTVMAF_MODEL_DIR");
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_TRUE(nlohmann::json::parse(r2.out).at("frames").at(0).at("metrics").contains("vmaf"));
}

TEST(ModelCli, NoPredictionComputesTheModelsFeaturesOnly) {
  const auto r = cli(kC01 + " -m path='" + motion_model().string() + "' -n --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("frames").at(0).at("metrics").contains("integer_motion2"));
  EXPECT_FALSE(j.at("frames").at(0).at("metrics").contains("vmaf"));
  const auto p = cli(kC01 + " -n --feature psnr --json -q");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const auto jp = nlohmann::json::parse(p.out);
  EXPECT_EQ(jp.at("frames").at(0).at("metrics").size(), 3u);  // psnr_y, psnr_cb, psnr_cr: no default model
  EXPECT_FALSE(jp.at("pooled_metrics").contains("vmaf"));
}

TEST(ModelCli, BootstrapOutputsInLibvmafsOrder) {
  const auto m0 = nlohmann::json::parse(motion_model_json(0.25));
  nlohmann::ordered_json b;
  for (int i = 0; i < 4; ++i) {
    auto m = nlohmann::json::parse(motion_model_json(0.25 + 0.125 * i));
    m["model_dict"]["model_type"] = "BOOTSTRAP_LIBSVMNUSVR";
    b[std::to_string(i)] = m;
  }
  const auto path = write_text(model_temp_dir() / "cli" / "boot.json", b.dump());
  const auto r = cli(kC01 + " -m path='" + path.string() + "':name=bs --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& [k, v] : j.at("frames").at(0).at("metrics").items()) names.push_back(k);
  EXPECT_EQ(names, (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score", "integer_motion2",
                                             "integer_motion3", "bs", "bs_0001", "bs_0002", "bs_0003", "bs_bagging",
                                             "bs_stddev", "bs_ci_p95_lo", "bs_ci_p95_hi"}));
  // bagging is the transformed, clipped mean of the members' raw scores.
  const Model model = load_model(parse_model_spec("path=" + path.string()), {});
  for (const auto& frame : j.at("frames")) {
    const double m2 = frame.at("metrics").at("integer_motion2");
    double sum = 0;
    for (const auto& member : model.bootstrap) sum += predict_score(member, std::vector<double>{m2}, true, true);
    double mean = sum / 3.0;
    const double bagging = frame.at("metrics").at("bs_bagging");
    EXPECT_NEAR(bagging, std::min(100.0, std::max(0.0, 1.5 + 0.9 * mean)), 1e-5);  // printed with %.6f
  }
}

// The CLI's JSON (printed with --precision max) has R's per-frame vmaf of a golden run.
void expect_vmaf_equals_r(const CmdResult& r, const std::string& pair, const std::string& run) {
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto golden = read_json(golden_dir() / "r" / pair / (run + ".json"));
  ASSERT_EQ(j.at("frames").size(), golden.at("frames").size());
  for (std::size_t i = 0; i < golden.at("frames").size(); ++i)
    EXPECT_TRUE(same_bits(j.at("frames")[i].at("metrics").at("vmaf").get<double>(),
                          golden.at("frames")[i].at("metrics").at("vmaf").get<double>()))
        << pair << "/" << run << " frame " << i;
}

TEST(ModelCli, DefaultModelIsVmafV061) {
  // Built in: no model directory needed, none searched.
  ScopedEnv no_env("EXACTVMAF_MODEL_DIR", std::nullopt);
  const auto r = cli(kC01 + " --json -q --precision max");
  if (!find_feature("adm") || !find_feature("vif")) {
    expect_clean_error(r, "default model vmaf_v0.6.1");
    EXPECT_NE(r.err.find("not available yet"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--no_prediction"), std::string::npos) << r.err;
    return;
  }
  expect_vmaf_equals_r(r, "c01_176x144_8b_420", "vmaf_v0.6.1");
}

// -m version=NAME finds the v1.0.16 models one folder down in the default
// model directory; the HFR model's per-frame vmaf equals R on s01. On a pair
// cambi refuses the run fails with one line.
TEST(ModelCli, V1016ByVersion) {
  try {
    (void)find_model_file("vmaf_v1.0.16_hfr_3d0h", {});
  } catch (const Error& e) {
    GTEST_SKIP() << "the v1.0.16 models are not installed here: " << e.what();
  }
  const std::string s01 = "-r " + fixture("s01_576x324_8b_420_ref.yuv") + " -d " +
                          fixture("s01_576x324_8b_420_dist.yuv") + " -w 576 -h 324 -p 420 -b 8";
  expect_vmaf_equals_r(cli(s01 + " -m version=vmaf_v1.0.16_hfr_3d0h --json -q --precision max"), "s01_576x324_8b_420",
                       "vmaf_v1.0.16_hfr_3d0h");
  expect_clean_error(cli(kC01 + " -m version=vmaf_v1.0.16_3d0h --json -q"),
                     "cambi needs a width or height of at least 216");
}

TEST(ModelCli, ErrorsAreOneLine) {
  expect_clean_error(cli(kC01 + " -m foo=bar"), "-m/--model foo=bar: unknown key 'foo'");
  expect_clean_error(cli(kC01 + " -m path="), "path= needs a value");
  expect_clean_error(cli(kC01 + " -m path='" + motion_model().string() + "':nosuch.opt=1"), "unknown feature 'nosuch'");
  expect_clean_error(cli(kC01 + " -m path='" + motion_model().string() + "':adm.adm_enhn_gain_limit=1"),
                     "has no feature 'adm'");
  expect_clean_error(cli(kC01 + " -m path='" + motion_model().string() + "':motion.nosuch=1"), "unknown option 'nosuch'");
  expect_clean_error(cli(kC01 + " -m path=/nonexistent/x.json"), "/nonexistent/x.json: no such model file");
  expect_clean_error(cli(kC01 + " -m path='" + motion_model().string() + "' -m path='" + motion_model().string() + "'"),
                     "already used");
  const auto bad = write_text(model_temp_dir() / "cli" / "bad.json", "{\"model_dict\": ");
  expect_clean_error(cli(kC01 + " -m path='" + bad.string() + "'"), "bad.json: not valid JSON");
}

}  // namespace
}  // namespace exactvmaf::test
