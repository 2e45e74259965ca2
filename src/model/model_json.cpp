// libvmaf JSON model files and the libsvm model text inside them.
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "exactvmaf/error.hpp"
#include "exactvmaf/model.hpp"
#include "model/model_detail.hpp"
#include "numeric/fpenv.hpp"

namespace exactvmaf {

namespace {

using json = nlohmann::json;
using namespace model_detail;

// Errors name the file and, for bootstrap files, the member.
struct Where {
  std::string_view source;
  std::string member;  // "" or "member \"3\": "
  [[noreturn]] void fail(std::string_view what) const {
    throw Error(fmt::format("{}: {}{}", source, member, what));
  }
};

const char* type_name(const json& v) { return v.type_name(); }

// One short line for a parse error: nlohmann's reason without its "last
// read" token (which can hold kilobytes of a truncated libsvm string), the
// byte offset and up to 24 bytes of input before it, escaped.
std::string json_error_summary(std::string_view text, const json::parse_error& e) {
  std::string_view what = e.what();
  if (const auto tag = what.find("] "); what.starts_with("[json.exception") && tag != std::string_view::npos)
    what.remove_prefix(tag + 2);
  if (const auto cut = what.find("; last read"); cut != std::string_view::npos) what = what.substr(0, cut);
  const std::size_t end = std::min<std::size_t>(e.byte, text.size());
  const std::size_t begin = end > 24 ? end - 24 : 0;
  std::string excerpt;
  for (const char c : text.substr(begin, end - begin)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') excerpt += fmt::format("\\{}", c);
    else if (u >= 0x20 && u < 0x7f) excerpt += c;
    else excerpt += fmt::format("\\x{:02x}", u);
  }
  return fmt::format("{} (byte {}{}, after '{}{}')", what, e.byte, end == text.size() ? ", the end of the file" : "",
                     begin > 0 ? "..." : "", excerpt);
}

double number(const Where& w, const json& v, std::string_view field) {
  if (!v.is_number()) w.fail(fmt::format("\"{}\" must be a number, not {}", field, type_name(v)));
  return v.get<double>();
}

const json& required(const Where& w, const json& dict, const char* key) {
  const auto it = dict.find(key);
  if (it == dict.end()) w.fail(fmt::format("\"model_dict\" has no \"{}\"", key));
  return *it;
}

std::vector<double> number_array(const Where& w, const json& v, std::string_view field) {
  if (!v.is_array()) w.fail(fmt::format("\"{}\" must be an array of numbers, not {}", field, type_name(v)));
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(number(w, v[i], fmt::format("{}[{}]", field, i)));
  return out;
}

// ---- the libsvm model text (libvmaf svm.cpp's parser, checked) ---------------

bool parse_double(std::string_view t, double& out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && p == t.data() + t.size() && !t.empty();
}

bool parse_int(std::string_view t, long long& out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && p == t.data() + t.size() && !t.empty();
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

SvmModel parse_libsvm(const Where& w, std::string_view text, std::size_t n_features) {
  auto bad = [&](std::string_view what) { w.fail(fmt::format("\"model\" (libsvm text): {}", what)); };
  std::size_t pos = 0;
  auto next_token = [&]() -> std::string_view {
    while (pos < text.size() && is_space(text[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && !is_space(text[pos])) ++pos;
    return text.substr(start, pos - start);
  };
  SvmModel m;
  bool have_type = false, have_kernel = false, have_gamma = false, have_rho = false, have_sv = false;
  long long nr_class = 2, total_sv = -1;
  for (std::string_view tok = next_token();; tok = next_token()) {
    if (tok.empty()) bad("no \"SV\" section");
    if (tok == "SV") break;
    if (tok == "svm_type") {
      const auto v = next_token();
      if (v != "nu_svr" && v != "epsilon_svr")
        bad(fmt::format("svm_type '{}' is not a regression model (expected nu_svr)", v));
      have_type = true;
    } else if (tok == "kernel_type") {
      const auto v = next_token();
      if (v != "rbf") bad(fmt::format("kernel_type '{}' is not supported (VMAF models use rbf)", v));
      have_kernel = true;
    } else if (tok == "gamma") {
      if (!parse_double(next_token(), m.gamma)) bad("gamma is not a number");
      have_gamma = true;
    } else if (tok == "degree" || tok == "coef0") {
      double ignored;
      if (!parse_double(next_token(), ignored)) bad(fmt::format("{} is not a number", tok));
    } else if (tok == "nr_class") {
      if (!parse_int(next_token(), nr_class) || nr_class != 2) bad("nr_class must be 2 for a regression model");
    } else if (tok == "total_sv") {
      if (!parse_int(next_token(), total_sv) || total_sv < 1 || total_sv > 10000000) bad("total_sv is not a positive count");
    } else if (tok == "rho") {
      if (!parse_double(next_token(), m.rho)) bad("rho is not a number");
      have_rho = true;
    } else {
      bad(fmt::format("unknown header field '{}'", tok));
    }
  }
  if (!have_type) bad("no svm_type");
  if (!have_kernel) bad("no kernel_type");
  if (!have_gamma) bad("no gamma");
  if (!have_rho) bad("no rho");
  if (total_sv < 0) bad("no total_sv");
  // "SV" ends its line; each support vector is one line: coefficient, index:value ...
  while (pos < text.size() && text[pos] != '\n') {
    if (!is_space(text[pos])) bad("text after \"SV\" on its line");
    ++pos;
  }
  if (pos < text.size()) ++pos;
  for (long long i = 0; i < total_sv; ++i) {
    if (pos >= text.size()) bad(fmt::format("total_sv is {} but there are only {} support vectors", total_sv, i));
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol < text.size() ? eol + 1 : eol;
    std::size_t lp = 0;
    auto line_token = [&]() -> std::string_view {
      while (lp < line.size() && is_space(line[lp])) ++lp;
      const std::size_t start = lp;
      while (lp < line.size() && !is_space(line[lp])) ++lp;
      return line.substr(start, lp - start);
    };
    double coef;
    if (!parse_double(line_token(), coef)) bad(fmt::format("support vector {}: no coefficient", i + 1));
    m.coef.push_back(coef);
    m.sv_start.push_back(m.nodes.size());
    long long last_index = 0;
    for (std::string_view tok = line_token(); !tok.empty(); tok = line_token()) {
      const auto colon = tok.find(':');
      long long index = 0;
      double value = 0;
      if (colon == std::string_view::npos || !parse_int(tok.substr(0, colon), index) ||
          !parse_double(tok.substr(colon + 1), value))
        bad(fmt::format("support vector {}: '{}' is not index:value", i + 1, tok));
      if (index <= last_index || index > static_cast<long long>(n_features))
        bad(fmt::format("support vector {}: index {} is out of order or beyond the {} features", i + 1, index,
                        n_features));
      last_index = index;
      m.nodes.push_back({static_cast<int>(index), value});
    }
    m.nodes.push_back({-1, 0.0});
  }
  for (; pos < text.size(); ++pos)
    if (!is_space(text[pos])) bad(fmt::format("more lines than total_sv ({}) support vectors", total_sv));
  have_sv = true;
  (void)have_sv;
  return m;
}

// ---- model_dict ------------------------------------------------------------

enum class ModelType { svr, bootstrap, residue_bootstrap };

SvrModel parse_model_dict(const Where& w, const json& top, const ModelSpec& spec, ModelType* type) {
  if (!top.is_object()) w.fail(fmt::format("a model must be a JSON object, not {}", type_name(top)));
  const auto md_it = top.find("model_dict");
  if (md_it == top.end()) w.fail("no \"model_dict\"");
  const json& md = *md_it;
  if (!md.is_object()) w.fail(fmt::format("\"model_dict\" must be an object, not {}", type_name(md)));
  SvrModel m;

  const json& mt = required(w, md, "model_type");
  if (!mt.is_string()) w.fail("\"model_type\" must be a string");
  const std::string model_type = mt.get<std::string>();
  if (model_type == "LIBSVMNUSVR") *type = ModelType::svr;
  else if (model_type == "BOOTSTRAP_LIBSVMNUSVR") *type = ModelType::bootstrap;
  else if (model_type == "RESIDUEBOOTSTRAP_LIBSVMNUSVR") *type = ModelType::residue_bootstrap;
  else
    w.fail(fmt::format("unknown model_type '{}' (expected LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR or "
                       "RESIDUEBOOTSTRAP_LIBSVMNUSVR)", model_type));

  const json& nt = required(w, md, "norm_type");
  if (!nt.is_string()) w.fail("\"norm_type\" must be a string");
  const std::string norm = nt.get<std::string>();
  if (norm == "linear_rescale") m.norm = NormType::linear_rescale;
  else if (norm == "none") m.norm = NormType::none;
  else w.fail(fmt::format("unknown norm_type '{}' (expected linear_rescale or none)", norm));

  const json& names = required(w, md, "feature_names");
  if (!names.is_array() || names.empty()) w.fail("\"feature_names\" must be a non-empty array of strings");
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!names[i].is_string()) w.fail(fmt::format("\"feature_names[{}]\" must be a string", i));
    ModelFeature f;
    f.name = names[i].get<std::string>();
    const char* ex = extractor_providing(f.name);
    if (!ex) w.fail(fmt::format("unknown feature name '{}' (no libvmaf feature extractor provides it)", f.name));
    f.extractor = ex;
    m.features.push_back(std::move(f));
  }
  const std::size_t n = m.features.size();

  for (const char* key : {"slopes", "intercepts"}) {
    const auto it = md.find(key);
    if (it == md.end()) {
      if (m.norm == NormType::linear_rescale) w.fail(fmt::format("\"model_dict\" has no \"{}\" (norm_type linear_rescale)", key));
      continue;
    }
    const auto v = number_array(w, *it, key);
    if (v.size() != n + 1)
      w.fail(fmt::format("\"{}\" has {} numbers; expected {} (one for the model, one per feature)", key, v.size(), n + 1));
    const bool slopes = key[0] == 's';
    (slopes ? m.slope : m.intercept) = v[0];
    for (std::size_t i = 0; i < n; ++i) (slopes ? m.features[i].slope : m.features[i].intercept) = v[i + 1];
  }

  if (const auto it = md.find("feature_opts_dicts"); it != md.end()) {
    const json& dicts = *it;
    if (!dicts.is_array()) w.fail("\"feature_opts_dicts\" must be an array of objects");
    if (dicts.size() != n)
      w.fail(fmt::format("\"feature_opts_dicts\" has {} entries; expected {} (one per feature)", dicts.size(), n));
    for (std::size_t i = 0; i < n; ++i) {
      if (!dicts[i].is_object()) w.fail(fmt::format("\"feature_opts_dicts[{}]\" must be an object", i));
      for (const auto& [key, v] : dicts[i].items()) {
        std::string value;
        if (v.is_boolean()) value = v.get<bool>() ? "true" : "false";
        else if (v.is_string()) value = v.get<std::string>();
        else if (v.is_number()) {
          // libvmaf normalises the number's text: "%g" of strtof. nlohmann
          // keeps the double, whose float rounding equals strtof's except at
          // float ties, which no %g-printable option value reaches.
          char buf[64];
          std::snprintf(buf, sizeof buf, "%g", static_cast<double>(static_cast<float>(v.get<double>())));
          value = buf;
        } else
          w.fail(fmt::format("\"feature_opts_dicts[{}].{}\" must be a number, boolean or string", i, key));
        m.features[i].options.emplace_back(key, value);
      }
    }
  }

  if (const auto it = md.find("score_clip"); it != md.end()) {
    const auto v = number_array(w, *it, "score_clip");
    if (v.size() != 2) w.fail("\"score_clip\" must be [min, max]");
    if (!spec.disable_clip) {
      m.clip_enabled = true;
      m.clip_min = v[0];
      m.clip_max = v[1];
    }
  }

  if (const auto it = md.find("score_transform"); it != md.end()) {
    const json& st = *it;
    if (!st.is_object()) w.fail("\"score_transform\" must be an object");
    ScoreTransform& t = m.transform;
    if (const auto e = st.find("enabled"); e != st.end()) {
      if (!e->is_boolean()) w.fail("\"score_transform.enabled\" must be true or false");
      t.enabled = e->get<bool>();
    }
    auto poly = [&](const char* key, bool& enabled, double& value) {
      const auto p = st.find(key);
      if (p == st.end() || p->is_null()) return;
      value = number(w, *p, fmt::format("score_transform.{}", key));
      enabled = true;
    };
    poly("p0", t.p0_enabled, t.p0);
    poly("p1", t.p1_enabled, t.p1);
    poly("p2", t.p2_enabled, t.p2);
    if (const auto k = st.find("knots"); k != st.end() && !k->is_null()) {
      if (!k->is_array()) w.fail("\"score_transform.knots\" must be an array of [x, y]");
      for (std::size_t i = 0; i < k->size(); ++i) {
        const auto xy = number_array(w, (*k)[i], fmt::format("score_transform.knots[{}]", i));
        if (xy.size() != 2) w.fail(fmt::format("\"score_transform.knots[{}]\" must be [x, y]", i));
        t.knots.emplace_back(xy[0], xy[1]);
      }
      t.knots_enabled = true;
    }
    for (const char* key : {"out_lte_in", "out_gte_in"}) {
      const auto r = st.find(key);
      if (r == st.end()) continue;
      if (!r->is_string()) w.fail(fmt::format("\"score_transform.{}\" must be the string \"true\" or \"false\"", key));
      if (r->get<std::string>() == "true") (key[4] == 'l' ? t.out_lte_in : t.out_gte_in) = true;
    }
    if (!t.enabled && spec.enable_transform) t.enabled = true;
  }

  if (const auto it = md.find("chroma_correction_parameter"); it != md.end()) {
    m.chroma_correction = number(w, *it, "chroma_correction_parameter");
    m.chroma_correction_enabled = true;
  }

  const json& svm_text = required(w, md, "model");
  if (!svm_text.is_string()) w.fail("\"model\" must be a string (the libsvm model)");
  m.svm = parse_libsvm(w, svm_text.get_ref<const std::string&>(), n);
  return m;
}

// One FEATURE.OPTION=VALUE on one SVR model; false when none of its features
// comes from that extractor.
bool override_features(SvrModel& m, const ModelSpec::Override& o) {
  const std::string value = looks_numeric(o.value) ? normalize_numeric(o.value) : o.value;
  bool used = false;
  for (auto& f : m.features) {
    if (f.extractor != o.feature) continue;
    used = true;
    bool replaced = false;
    for (auto& [k, v] : f.options)
      if (k == o.option) v = value, replaced = true;
    if (!replaced) f.options.emplace_back(o.option, value);
  }
  return used;
}

void apply_overrides(const Model& model, SvrModel& m, const ModelSpec& spec) {
  for (const auto& o : spec.overrides)
    if (!override_features(m, o))
      throw Error(fmt::format("-m {}: {}.{}={}: {} has no feature '{}'", spec.arg, o.feature, o.option, o.value,
                              model.source, o.feature));
}

}  // namespace

Model parse_model_json(std::string_view text, std::string_view source, const ModelSpec& spec) {
  FpEnvGuard env;  // decimal conversions honour the rounding mode
  json top;
  try {
    top = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", source, json_error_summary(text, e)));
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", source, e.what()));
  }
  Model model;
  model.source = std::string(source);
  model.label = spec.version.empty() ? spec.path : spec.version;
  if (!top.is_object()) Where{source, ""}.fail(fmt::format("a model file must be a JSON object, not {}", type_name(top)));
  ModelType type{};
  if (top.contains("model_dict")) {
    model.main = parse_model_dict(Where{source, ""}, top, spec, &type);
    model.main.name = spec.name;
  } else if (top.contains("0")) {
    // A bootstrap collection: members "0", "1", ...; "0" is the model itself.
    ModelType first{};
    for (std::size_t i = 0;; ++i) {
      const auto it = top.find(std::to_string(i));
      if (it == top.end()) break;
      const Where w{source, fmt::format("member \"{}\": ", i)};
      SvrModel m = parse_model_dict(w, *it, spec, &type);
      if (i == 0) {
        m.name = spec.name;
        first = type;
        model.main = std::move(m);
        continue;
      }
      if (i == 1) first = type;
      else if (type != first) w.fail("model_type differs from member \"1\"'s");
      m.name = fmt::format("{}_{:04d}", spec.name, i);
      model.bootstrap.push_back(std::move(m));
    }
    if (model.bootstrap.empty()) Where{source, ""}.fail("a bootstrap collection needs members \"0\" and \"1\"");
    if (first == ModelType::svr)
      Where{source, ""}.fail("bootstrap members must have model_type BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR");
    model.collection_name = spec.name;
  } else {
    Where{source, ""}.fail("no \"model_dict\" and no bootstrap members \"0\", \"1\", ...");
  }
  apply_overrides(model, model.main, spec);
  for (auto& b : model.bootstrap) apply_overrides(model, b, spec);
  return model;
}

bool override_model_feature(Model& model, const ModelSpec::Override& o) {
  bool used = override_features(model.main, o);
  for (auto& b : model.bootstrap) used = override_features(b, o) || used;
  return used;
}

Model load_model(const ModelSpec& spec, const ModelSearch& search) {
  std::filesystem::path path = spec.path;
  if (!spec.version.empty()) {
    if (auto file = find_model_file(spec.version, search)) {
      path = *file;
    } else if (auto text = builtin_model_json(spec.version)) {
      return parse_model_json(*text, fmt::format("built-in model {}", spec.version), spec);
    } else {
      std::vector<std::string> searched;
      for (const auto& dir : model_search_dirs(search)) {
        searched.push_back((dir / (spec.version + ".json")).string());
        searched.push_back((dir / "*" / (spec.version + ".json")).string());
      }
      searched.push_back("the built-in models (--list-models)");
      throw Error(fmt::format("-m version={}: model not found (searched {}; use --model_dir DIR, set "
                              "EXACTVMAF_MODEL_DIR, or use path=FILE)", spec.version, fmt::join(searched, ", ")));
    }
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(fmt::format("-m {}: {}: no such model file", spec.arg, path.string()));
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("-m {}: {}: is a directory, not a model file", spec.arg, path.string()));
  if (path.extension() == ".pkl")
    throw Error(fmt::format("-m {}: {}: pkl model files are not supported, use the .json model", spec.arg, path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("-m {}: {}: cannot open the model file", spec.arg, path.string()));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw Error(fmt::format("-m {}: {}: cannot read the model file", spec.arg, path.string()));
  return parse_model_json(text, path.string(), spec);
}

std::vector<Model> load_models(const std::vector<ModelSpec>& specs, const ModelSearch& search) {
  std::vector<Model> models;
  std::vector<std::string> names;
  for (const auto& spec : specs) {
    Model m = load_model(spec, search);
    std::vector<std::string> outputs = {m.main.name};
    for (const auto& b : m.bootstrap) outputs.push_back(b.name);
    if (!m.bootstrap.empty())
      for (const char* s : {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"}) outputs.push_back(m.collection_name + s);
    for (const auto& o : outputs) {
      for (const auto& n : names)
        if (n == o)
          throw Error(fmt::format("-m {}: output name '{}' is already used by another model; each model needs "
                                  "its own name=...", spec.arg, o));
      names.push_back(o);
    }
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace exactvmaf
