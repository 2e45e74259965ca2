#include "report_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"

namespace {

// The temporary file's path for the signal handler (async-signal-safe use only).
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_live = 0;

extern "C" void remove_temp_and_die(int sig) {
  if (g_temp_live) ::unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

ReportFile::ReportFile(const std::string& path) : path_(path), shown_(path) {
  if (path.empty() || path == "-") return;
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw exactvmaf::Error(fmt::format("{}: cannot write output file: is a directory", path));
    stream_ = std::fopen(path.c_str(), "w");
    if (!stream_) throw exactvmaf::Error(fmt::format("{}: cannot write output file: {}", path, std::strerror(errno)));
    owned_ = true;
    return;
  }
  // A link is followed: the file it names is replaced, the link kept.
  std::error_code ec;
  const auto target = std::filesystem::weakly_canonical(path, ec);
  if (!ec) path_ = target.string();
  const auto dir = std::filesystem::path(path_).parent_path();
  const std::string stem = std::filesystem::path(path_).filename().string();
  int fd = -1;
  for (unsigned attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temp_ = (dir / fmt::format(".{}.{}.{}.part", stem, ::getpid(), attempt)).string();
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw exactvmaf::Error(fmt::format("{}: cannot write output file: {}", path, std::strerror(errno)));
  struct stat old{};
  if (::stat(path_.c_str(), &old) == 0) (void)::fchmod(fd, old.st_mode & 07777);  // keep the replaced file's mode
  if (temp_.size() < sizeof g_temp_path) {
    std::memcpy(g_temp_path, temp_.c_str(), temp_.size() + 1);
    g_temp_live = 1;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old{};
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // e.g. nohup: stay immune
      struct sigaction sa{};
      sa.sa_handler = remove_temp_and_die;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  }
  stream_ = ::fdopen(fd, "w");
  if (!stream_) {
    const int err = errno;
    ::close(fd);
    discard();
    throw exactvmaf::Error(fmt::format("{}: cannot write output file: {}", path, std::strerror(err)));
  }
  owned_ = true;
}

ReportFile::~ReportFile() {
  if (owned_ && stream_) std::fclose(stream_);
  discard();
}

void ReportFile::discard() {
  if (temp_.empty()) return;
  g_temp_live = 0;
  ::unlink(temp_.c_str());
  temp_.clear();
}

void ReportFile::fail_write() {
  throw exactvmaf::Error(fmt::format("{}: write failed: {}", shown_.empty() ? "stdout" : shown_, std::strerror(errno)));
}

void ReportFile::commit() {
  if (std::fflush(stream_) != 0) fail_write();
  if (!owned_) return;
  std::FILE* f = stream_;
  stream_ = nullptr;
  if (std::fclose(f) != 0) fail_write();
  if (!temp_.empty()) {
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) fail_write();
    g_temp_live = 0;
    temp_.clear();
  }
}
