// Internals of the report writers (output.hpp), exposed for the tests and
// for a future `--sub` output.
#pragma once
#include <string>
#include <string_view>

#include "exactvmaf/output.hpp"

namespace exactvmaf::detail {

// libvmaf's vmaf_feature_name_alias (feature/alias.c): the name a report
// prints for a metric; names without an alias print as they are.
std::string_view metric_print_name(std::string_view name);

// libvmaf's `--sub` (subtitle) output: one line per printed frame,
// "{i}{i+1}frame: i|name: value|...". Not reachable through OutputFormat
// (which has no `sub`); kept here so adding it is one enum value.
std::string sub_report_to_string(const RunResult& r, const OutputMeta& meta,
                                 const NumberFormat& nf);

}  // namespace exactvmaf::detail
