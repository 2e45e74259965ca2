#include "exactvmaf/exactvmaf.hpp"

namespace exactvmaf {
const char* version() { return EXACTVMAF_VERSION; }
}  // namespace exactvmaf
