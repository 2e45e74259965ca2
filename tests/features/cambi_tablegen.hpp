// Generator of src/features/cambi/cambi_reciprocal_table.hpp (cambi_tablegen.cpp).
#pragma once
#include <string>

namespace exactvmaf::test {
std::string generate_cambi_reciprocal_table();
}
