// The fixed-point log2 table of integer VIF (host): entry i - 32768 holds
// round(log2f(i) * 2048) for i = 32768..65535, with R's correctly rounded
// log2f (rmath::cr_log2f), built once per process.
#pragma once
#include <cstdint>

namespace exactvmaf::vif {

// vif::log2_table_size entries; valid for the life of the process.
const std::uint16_t* log2_table();

}  // namespace exactvmaf::vif
