// Model files: every shipped model parses; malformed ones fail with one line
// naming the file; -m arguments; the model directory search.
#include <gtest/gtest.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/model_support.hpp"
#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

std::vector<std::filesystem::path> all_model_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(models_dir()))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ModelFiles, EveryShippedModelParses) {
  EXACTVMAF_REQUIRE_MODELS();
  const auto files = all_model_files();
  ASSERT_GE(files.size(), 17u) << "expected the 17 model files of Netflix/vmaf model/ (see docs/models.md)";
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    Model m;
    ASSERT_NO_THROW(m = load_model(parse_model_spec("path=" + f.string()), {}));
    EXPECT_EQ(m.main.name, "vmaf");
    EXPECT_FALSE(m.main.features.empty());
    EXPECT_EQ(m.main.svm.coef.size(), m.main.svm.sv_start.size());
    EXPECT_GT(m.main.svm.coef.size(), 0u);
    EXPECT_EQ(m.main.norm, NormType::linear_rescale);
    EXPECT_TRUE(m.main.clip_enabled);
  }
}

TEST(ModelFiles, ContentsOfTheDefaultModel) {
  EXACTVMAF_REQUIRE_MODELS();
  const Model m = load_model(parse_model_spec("path=" + (models_dir() / "vmaf_v0.6.1.json").string()), {});
  ASSERT_EQ(m.main.features.size(), 6u);
  EXPECT_EQ(m.main.features[0].name, "VMAF_integer_feature_adm2_score");
  EXPECT_EQ(m.main.features[0].extractor, "adm");
  EXPECT_EQ(m.main.features[1].extractor, "motion");
  EXPECT_EQ(m.main.features[5].extractor, "vif");
  EXPECT_EQ(m.main.svm.coef.size(), 211u);
  EXPECT_EQ(m.main.svm.gamma, 0.04);
  EXPECT_EQ(m.main.svm.rho, -1.33133);
  EXPECT_EQ(m.main.slope, 0.012020766332648465);
  EXPECT_EQ(m.main.features[0].intercept, -1.7993968597186747);
  // The transform is present but not enabled ("enabled" absent); clip [0, 100].
  EXPECT_FALSE(m.main.transform.enabled);
  EXPECT_TRUE(m.main.transform.p2_enabled && m.main.transform.out_gte_in);
  EXPECT_EQ(m.main.clip_max, 100.0);
  EXPECT_TRUE(m.bootstrap.empty());
  // A support vector with a zero left out (index 5 missing).
  const auto& sv = m.main.svm;
  bool sparse = false;
  for (std::size_t i = 0; i < sv.sv_start.size(); ++i) {
    std::size_t n = 0;
    while (sv.nodes[sv.sv_start[i] + n].index != -1) ++n;
    sparse |= n < 6;
  }
  EXPECT_TRUE(sparse);
}

TEST(ModelFiles, OptionsFlagsAndBootstrap) {
  EXACTVMAF_REQUIRE_MODELS();
  const Model neg = load_model(parse_model_spec("path=" + (models_dir() / "vmaf_v0.6.1neg.json").string()), {});
  ASSERT_EQ(neg.main.features[0].options.size(), 1u);
  EXPECT_EQ(neg.main.features[0].options[0], std::make_pair(std::string("adm_enhn_gain_limit"), std::string("1")));
  EXPECT_TRUE(neg.main.features[1].options.empty());

  const Model flags = load_model(
      parse_model_spec("path=" + (models_dir() / "vmaf_v0.6.1.json").string() + ":disable_clip:enable_transform:name=x"),
      {});
  EXPECT_FALSE(flags.main.clip_enabled);
  EXPECT_TRUE(flags.main.transform.enabled);
  EXPECT_EQ(flags.main.name, "x");

  const Model over = load_model(
      parse_model_spec("path=" + (models_dir() / "vmaf_v0.6.1neg.json").string() + ":adm.adm_enhn_gain_limit=1.10"), {});
  EXPECT_EQ(over.main.features[0].options[0].second, "1.1");  // replaced, normalised as libvmaf does

  const Model b = load_model(parse_model_spec("path=" + (models_dir() / "vmaf_b_v0.6.3.json").string() + ":name=vb"), {});
  ASSERT_EQ(b.bootstrap.size(), 20u);
  EXPECT_EQ(b.main.name, "vb");
  EXPECT_EQ(b.bootstrap[0].name, "vb_0001");
  EXPECT_EQ(b.bootstrap[19].name, "vb_0020");
  EXPECT_EQ(b.collection_name, "vb");

  const Model v16 =
      load_model(parse_model_spec("path=" + (models_dir() / "vmaf_v1.0.16" / "vmaf_v1.0.16_3d0h.json").string()), {});
  EXPECT_TRUE(v16.main.chroma_correction_enabled);
  EXPECT_TRUE(v16.main.transform.enabled);
  EXPECT_EQ(v16.main.features[0].extractor, "cambi");
  EXPECT_EQ(v16.main.features[1].extractor, "speed_chroma");
  // cambi is not implemented: loading for prediction says so.
  if (!find_feature("cambi")) {
    const std::string e = error_of([&] { model_feature_requests({v16}); });
    EXPECT_NE(e.find("feature cambi"), std::string::npos) << e;
    EXPECT_NE(e.find("not available yet"), std::string::npos) << e;
  }
}

// ---- malformed model files -----------------------------------------------------

std::string default_model_text() { return read_text(models_dir() / "vmaf_v0.6.1.json"); }

// Writes `text` as NAME.json and returns load_model's error.
std::string load_error(const std::string& name, const std::string& text) {
  const auto p = write_text(model_temp_dir() / "bad" / (name + ".json"), text);
  return error_of([&] { load_model(parse_model_spec("path=" + p.string()), {}); });
}

std::string edited(const std::function<void(nlohmann::ordered_json&)>& edit) {
  auto j = nlohmann::ordered_json::parse(default_model_text());
  edit(j);
  return j.dump();
}

void expect_one_line_naming(const std::string& e, const std::string& file, const std::string& fragment) {
  EXPECT_NE(e.find(file), std::string::npos) << e;
  EXPECT_NE(e.find(fragment), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(ModelFiles, MalformedFilesGiveOneLineNamingTheFile) {
  EXACTVMAF_REQUIRE_MODELS();
  const std::string text = default_model_text();
  expect_one_line_naming(load_error("truncated", text.substr(0, text.size() / 2)), "truncated.json", "not valid JSON");
  // Cut inside the long libsvm string: nlohmann's message would quote all of it.
  const std::string cut = text.substr(0, text.find("\"model\"") + 2000);
  const std::string e = load_error("cut_in_string", cut);
  expect_one_line_naming(e, "cut_in_string.json", "not valid JSON");
  EXPECT_LT(e.size(), 300u) << e;
  EXPECT_NE(e.find(fmt::format("(byte {}", cut.size() + 1)), std::string::npos) << e;  // nlohmann counts the EOF read
  EXPECT_NE(e.find("the end of the file"), std::string::npos) << e;
  expect_one_line_naming(load_error("empty", ""), "empty.json", "not valid JSON");
  expect_one_line_naming(load_error("array", "[1, 2]"), "array.json", "JSON object");
  expect_one_line_naming(load_error("nodict", "{\"x\": 1}"), "nodict.json", "model_dict");
  expect_one_line_naming(load_error("no_names", edited([](auto& j) { j["model_dict"].erase("feature_names"); })),
                         "no_names.json", "feature_names");
  expect_one_line_naming(load_error("no_model", edited([](auto& j) { j["model_dict"].erase("model"); })), "no_model.json",
                         "\"model\"");
  expect_one_line_naming(load_error("type", edited([](auto& j) { j["model_dict"]["model_type"] = "RANDOMFOREST"; })),
                         "type.json", "unknown model_type 'RANDOMFOREST'");
  expect_one_line_naming(load_error("norm", edited([](auto& j) { j["model_dict"]["norm_type"] = "clip_0to1"; })),
                         "norm.json", "unknown norm_type 'clip_0to1'");
  expect_one_line_naming(load_error("slopes", edited([](auto& j) { j["model_dict"]["slopes"].erase(2); })),
                         "slopes.json", "\"slopes\" has 6 numbers; expected 7");
  expect_one_line_naming(load_error("intercept_type", edited([](auto& j) { j["model_dict"]["intercepts"][1] = "x"; })),
                         "intercept_type.json", "intercepts[1]");
  expect_one_line_naming(load_error("feature", edited([](auto& j) { j["model_dict"]["feature_names"][2] = "VMAF_nosuch"; })),
                         "feature.json", "unknown feature name 'VMAF_nosuch'");
  expect_one_line_naming(load_error("opts", edited([](auto& j) { j["model_dict"]["feature_opts_dicts"] = nlohmann::ordered_json::array({nlohmann::ordered_json::object()}); })),
                         "opts.json", "\"feature_opts_dicts\" has 1 entries; expected 6");
  expect_one_line_naming(load_error("clip", edited([](auto& j) { j["model_dict"]["score_clip"] = {0.0}; })), "clip.json",
                         "score_clip");
  expect_one_line_naming(load_error("svm_count", edited([](auto& j) {
                           std::string m = j["model_dict"]["model"];
                           m.replace(m.find("total_sv 211"), 12, "total_sv 212");
                           j["model_dict"]["model"] = m;
                         })),
                         "svm_count.json", "total_sv is 212 but there are only 211");
  expect_one_line_naming(load_error("svm_kernel", edited([](auto& j) {
                           std::string m = j["model_dict"]["model"];
                           m.replace(m.find("rbf"), 3, "sigmoid");
                           j["model_dict"]["model"] = m;
                         })),
                         "svm_kernel.json", "kernel_type 'sigmoid'");
  expect_one_line_naming(load_error("svm_index", edited([](auto& j) {
                           std::string m = j["model_dict"]["model"];
                           m.replace(m.find("6:"), 2, "9:");
                           j["model_dict"]["model"] = m;
                         })),
                         "svm_index.json", "index 9");
  expect_one_line_naming(load_error("bootstrap1", "{\"0\": " + text + "}"), "bootstrap1.json", "members \"0\" and \"1\"");
  expect_one_line_naming(load_error("bootstrap_bad", "{\"0\": " + text + ", \"1\": {\"model_dict\": 3}}"),
                         "bootstrap_bad.json", "member \"1\"");

  const std::string missing = error_of([] { load_model(parse_model_spec("path=/nonexistent/m.json"), {}); });
  expect_one_line_naming(missing, "/nonexistent/m.json", "no such model file");
}

TEST(ModelFiles, UnknownOptionInAModelFileFailsWhenItsFeaturesAreRequested) {
  if (!find_feature("motion")) GTEST_SKIP() << "motion is not registered";
  const std::string svm = "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:0.5\n";
  nlohmann::json md = {{"model_type", "LIBSVMNUSVR"},
                       {"norm_type", "none"},
                       {"feature_names", {"VMAF_integer_feature_motion2_score"}},
                       {"feature_opts_dicts", nlohmann::json::array({{{"motion_nosuch", 1}}})},
                       {"model", svm}};
  const auto p = write_text(model_temp_dir() / "bad" / "opt.json", nlohmann::json{{"model_dict", md}}.dump());
  const Model m = load_model(parse_model_spec("path=" + p.string()), {});  // parsing does not know the options
  const std::string e = error_of([&] { model_feature_requests({m}); });
  expect_one_line_naming(e, "opt.json", "unknown option 'motion_nosuch'");
}

// ---- -m arguments ----------------------------------------------------------------

TEST(ModelSpec, ParsesLibvmafSyntax) {
  const ModelSpec s = parse_model_spec("version=vmaf_v0.6.1neg:name=neg:disable_clip:enable_transform=false:"
                                       "adm.adm_enhn_gain_limit=1.1:vif.vif_enhn_gain_limit=1.0");
  EXPECT_EQ(s.version, "vmaf_v0.6.1neg");
  EXPECT_EQ(s.name, "neg");
  EXPECT_TRUE(s.disable_clip);
  EXPECT_FALSE(s.enable_transform);
  ASSERT_EQ(s.overrides.size(), 2u);
  EXPECT_EQ(s.overrides[0].feature, "adm");
  EXPECT_EQ(s.overrides[0].option, "adm_enhn_gain_limit");
  EXPECT_EQ(s.overrides[0].value, "1.1");
  EXPECT_EQ(parse_model_spec("path=a.json").name, "vmaf");
}

TEST(ModelSpec, ErrorsNameTheArgument) {
  auto e = error_of([] { parse_model_spec("foo=bar"); });
  EXPECT_NE(e.find("-m/--model foo=bar: unknown key 'foo'"), std::string::npos) << e;
  e = error_of([] { parse_model_spec("path="); });
  EXPECT_NE(e.find("path= needs a value"), std::string::npos) << e;
  e = error_of([] { parse_model_spec("name=x"); });
  EXPECT_NE(e.find("needs path=FILE or version=NAME"), std::string::npos) << e;
  e = error_of([] { parse_model_spec("path=a:version=b"); });
  EXPECT_NE(e.find("not both"), std::string::npos) << e;
  e = error_of([] { parse_model_spec("path=a:nosuch.opt=1"); });
  EXPECT_NE(e.find("unknown feature 'nosuch'"), std::string::npos) << e;
  e = error_of([] { parse_model_spec("path=a:clip"); });
  EXPECT_NE(e.find("'clip' is not key=value"), std::string::npos) << e;
  e = error_of([] { parse_model_spec("path=a:disable_clip=maybe"); });
  EXPECT_NE(e.find("expected true or false"), std::string::npos) << e;
}

TEST(ModelSpec, OverrideOfAFeatureTheModelDoesNotUseFails) {
  EXACTVMAF_REQUIRE_MODELS();
  const auto e = error_of([] {
    load_model(parse_model_spec("path=" + (models_dir() / "vmaf_v0.6.1.json").string() + ":psnr.enable_chroma=false"), {});
  });
  EXPECT_NE(e.find("has no feature 'psnr'"), std::string::npos) << e;
}

TEST(ModelSpec, ModelNamesMustBeUnique) {
  EXACTVMAF_REQUIRE_MODELS();
  const std::string p = "path=" + (models_dir() / "vmaf_v0.6.1.json").string();
  auto e = error_of([&] { load_models({parse_model_spec(p), parse_model_spec(p)}, {}); });
  EXPECT_NE(e.find("output name 'vmaf' is already used"), std::string::npos) << e;
  EXPECT_NO_THROW(load_models({parse_model_spec(p), parse_model_spec(p + ":name=other")}, {}));
}

// ---- the model directory search ------------------------------------------------


TEST(ModelSearch, ModelDirThenEnvironmentThenBuiltIn) {
  EXACTVMAF_REQUIRE_MODELS();
  const std::string text = default_model_text();
  const auto dir_a = model_temp_dir() / "search_a", dir_b = model_temp_dir() / "search_b";
  write_text(dir_a / "only_a.json", text);
  write_text(dir_a / "both.json", text);
  write_text(dir_b / "sub" / "both.json", text);
  write_text(dir_b / "nested" / "only_b_sub.json", text);
  ScopedEnv env("EXACTVMAF_MODEL_DIR", dir_b.string());
  EXPECT_EQ(find_model_file("only_a", {dir_a.string()}), dir_a / "only_a.json");
  EXPECT_EQ(find_model_file("both", {dir_a.string()}), dir_a / "both.json");  // --model_dir first
  EXPECT_EQ(find_model_file("both", {}), dir_b / "sub" / "both.json");       // then the environment
  EXPECT_EQ(find_model_file("only_b_sub", {dir_a.string()}), dir_b / "nested" / "only_b_sub.json");
  EXPECT_EQ(find_model_file("vmaf_v0.6.1", {dir_a.string()}), std::nullopt);  // not in a directory: built in
  const Model m = load_model(parse_model_spec("version=only_a"), {dir_a.string()});
  EXPECT_EQ(m.source, (dir_a / "only_a.json").string());
  EXPECT_EQ(m.label, "only_a");
  // A file in a search directory shadows the built-in model of its name.
  write_text(dir_a / "vmaf_v0.6.1.json", text);
  EXPECT_EQ(load_model(parse_model_spec("version=vmaf_v0.6.1"), {dir_a.string()}).source,
            (dir_a / "vmaf_v0.6.1.json").string());
  EXPECT_EQ(load_model(parse_model_spec("version=vmaf_v0.6.1"), {}).source, "built-in model vmaf_v0.6.1");
}

// Every file of models/ is compiled in byte for byte, under libvmaf's name.
TEST(ModelBuiltIn, EveryModelFileIsBuiltInUnchanged) {
  EXACTVMAF_REQUIRE_MODELS();
  ScopedEnv no_env("EXACTVMAF_MODEL_DIR", std::nullopt);
  const auto files = all_model_files();
  const auto names = builtin_model_names();
  ASSERT_EQ(names.size(), files.size());
  for (const auto& f : files) {
    const std::string name = f.stem().string();
    SCOPED_TRACE(name);
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end());
    const auto json = builtin_model_json(name);
    ASSERT_TRUE(json.has_value());
    EXPECT_TRUE(*json == read_text(f)) << "the built-in copy differs from " << f.string();
    const Model m = load_model(parse_model_spec("version=" + name), {});
    EXPECT_EQ(m.source, "built-in model " + name);
  }
  for (const char* upstream_name : {"vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1neg",
                                    "vmaf_b_v0.6.3", "vmaf_float_v0.6.1", "vmaf_float_v0.6.1neg",
                                    "vmaf_float_4k_v0.6.1", "vmaf_float_b_v0.6.3", "vmaf_v1.0.16_3d0h",
                                    "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_1d5h_2160",
                                    "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_3d0h_2160", "vmaf_v1.0.16_hfr_5d0h",
                                    "vmaf_v1.0.16_hfr_1d5h_2160"})
    EXPECT_TRUE(builtin_model_json(upstream_name).has_value()) << upstream_name;
  EXPECT_FALSE(builtin_model_json("vmaf_nosuch").has_value());
}

TEST(ModelSearch, NotFoundListsEveryPlaceSearched) {
  const auto dir_a = model_temp_dir() / "search_empty_a", dir_b = model_temp_dir() / "search_empty_b";
  std::filesystem::create_directories(dir_a);
  std::filesystem::create_directories(dir_b);
  ScopedEnv env("EXACTVMAF_MODEL_DIR", dir_b.string());
  EXPECT_EQ(find_model_file("vmaf_nosuch", {dir_a.string()}), std::nullopt);
  const auto e = error_of([&] { load_model(parse_model_spec("version=vmaf_nosuch"), {dir_a.string()}); });
  EXPECT_NE(e.find("-m version=vmaf_nosuch: model not found"), std::string::npos) << e;
  EXPECT_NE(e.find((dir_a / "vmaf_nosuch.json").string()), std::string::npos) << e;
  EXPECT_NE(e.find((dir_a / "*" / "vmaf_nosuch.json").string()), std::string::npos) << e;
  EXPECT_NE(e.find((dir_b / "vmaf_nosuch.json").string()), std::string::npos) << e;
  EXPECT_NE(e.find("the built-in models"), std::string::npos) << e;
  EXPECT_EQ(e.find("/exactvmaf/models"), std::string::npos) << e;  // no made-up install folder
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(error_of([] { find_model_file("../etc/passwd", {}); }).find("not a model name"), std::string::npos);
  EXPECT_NE(error_of([] { load_model(parse_model_spec("version=a/b"), {}); }).find("not a model name"), std::string::npos);
}

}  // namespace
}  // namespace exactvmaf::test
