// Running the exactvmaf CLI from a test (EXACTVMAF_CLI): its exit code and
// stderr, a fixture's raw-input arguments, the one-line error check.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/fixtures.hpp"

namespace exactvmaf::test {

struct CmdResult {
  int exit_code = -1;
  std::string err;
};

// Runs the exactvmaf CLI (args are shell words), stderr captured.
inline CmdResult cli(const std::string& args) {
  static int counter = 0;
  const auto err = std::filesystem::temp_directory_path() / fmt::format("exactvmaf_cli_test_{}_{}.err", ::getpid(), counter++);
  const std::string cmd = fmt::format("'{}' {} >/dev/null 2>'{}' </dev/null", EXACTVMAF_CLI, args, err.string());
  const int status = std::system(cmd.c_str());
  CmdResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err);
  return r;
}

inline std::string fixture_args(const char* pair) {
  const auto p = fixture_pair(pair);
  EXPECT_TRUE(p) << pair;
  return fmt::format("-r '{}' -d '{}' -w {} -h {} -p {} -b {} -n", p->ref.string(), p->dist.string(), p->raw.width,
                     p->raw.height, pixel_format_name(p->raw.pix_fmt), p->raw.bitdepth);
}

inline void expect_one_line_error(const CmdResult& r, const std::string& fragment) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, -1) << "killed by a signal";
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
}

}  // namespace exactvmaf::test
