// One exception type for every user-facing failure. Its message is a single
// line that names the input (file, option, feature, device) and the problem.
#pragma once
#include <stdexcept>
#include <string>

namespace exactvmaf {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace exactvmaf
