// The command line of a table generator: print the generated text, or with
// --check FILE compare FILE with it (exit 0 when equal, 1 when not, 2 on
// misuse); and reading a committed table for the quick-tier comparison.
#pragma once
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace exactvmaf::test {

inline std::string read_text_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline int tablegen_main(int argc, char** argv, const std::string& text) {
  if (argc == 3 && std::strcmp(argv[1], "--check") == 0) {
    if (!std::filesystem::exists(argv[2])) {
      std::fprintf(stderr, "%s: cannot open\n", argv[2]);
      return 2;
    }
    if (read_text_file(argv[2]) != text) {
      std::fprintf(stderr, "%s: differs from the generator's output\n", argv[2]);
      return 1;
    }
    std::printf("%s: up to date\n", argv[2]);
    return 0;
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--check FILE]\n", argv[0]);
    return 2;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace exactvmaf::test
