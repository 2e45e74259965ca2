#pragma once
#include <string>

namespace exactvmaf::test {
// The full text of src/numeric/cr_trig_tables.hpp.
std::string generate_cr_trig_tables();
}  // namespace exactvmaf::test
