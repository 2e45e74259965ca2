#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/feature.hpp"

namespace exactvmaf {

namespace {

const char* type_name(OptionType t) {
  switch (t) {
    case OptionType::boolean: return "true or false";
    case OptionType::integer: return "an integer";
    case OptionType::real: return "a number";
    case OptionType::string: return "a string";
  }
  return "?";
}

std::string range_text(const OptionSpec& s) {
  if (s.type == OptionType::integer)
    return fmt::format("[{}, {}]", static_cast<long long>(s.min), static_cast<long long>(s.max));
  return fmt::format("[{}, {}]", s.min, s.max);
}

}  // namespace

OptionValues::OptionValues(const std::vector<OptionSpec>* specs) : specs_(specs) {
  for (const auto& s : *specs) values_.push_back(s.default_value);
  set_.assign(specs->size(), false);
}

std::size_t OptionValues::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < specs_->size(); ++i)
    if ((*specs_)[i].name == name) return i;
  throw InternalError(fmt::format("internal: option '{}' is not declared", name));
}

bool OptionValues::get_bool(std::string_view n) const { return std::get<bool>(values_[index_of(n)]); }
std::int64_t OptionValues::get_int(std::string_view n) const { return std::get<std::int64_t>(values_[index_of(n)]); }
double OptionValues::get_real(std::string_view n) const { return std::get<double>(values_[index_of(n)]); }
const std::string& OptionValues::get_string(std::string_view n) const {
  return std::get<std::string>(values_[index_of(n)]);
}
bool OptionValues::is_default(std::string_view n) const {
  const std::size_t i = index_of(n);
  return values_[i] == (*specs_)[i].default_value;
}

void OptionValues::set(std::string_view feature, std::string_view name, std::string_view value) {
  std::size_t i = 0;
  for (; i < specs_->size(); ++i)
    if ((*specs_)[i].name == name) break;
  if (i == specs_->size()) {
    std::string known;
    for (const auto& s : *specs_) known += (known.empty() ? "" : ", ") + s.name;
    throw Error(fmt::format("--feature {}: unknown option '{}' (options: {})", feature, name,
                            known.empty() ? "none" : known));
  }
  const OptionSpec& s = (*specs_)[i];
  auto bad = [&](const char* why) {
    return Error(fmt::format("--feature {}: option {}={}: {}, expected {}{}", feature, name, value, why,
                             type_name(s.type),
                             s.type == OptionType::integer || s.type == OptionType::real
                                 ? " in " + range_text(s)
                                 : std::string()));
  };
  switch (s.type) {
    case OptionType::boolean:
      // libvmaf accepts exactly "true" and "false".
      if (value == "true") values_[i] = true;
      else if (value == "false") values_[i] = false;
      else throw bad("not a boolean");
      break;
    case OptionType::integer: {
      std::int64_t n = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || p != value.data() + value.size() || value.empty()) throw bad("not an integer");
      if (static_cast<double>(n) < s.min || static_cast<double>(n) > s.max) throw bad("out of range");
      values_[i] = n;
      break;
    }
    case OptionType::real: {
      double d = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), d);
      if (ec != std::errc() || p != value.data() + value.size() || value.empty() || !std::isfinite(d))
        throw bad("not a number");
      if (d < s.min || d > s.max) throw bad("out of range");
      values_[i] = d;
      break;
    }
    case OptionType::string:
      values_[i] = std::string(value);
      break;
  }
  set_[i] = true;
}

}  // namespace exactvmaf
