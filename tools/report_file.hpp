// The CLI's -o FILE: the report is written to a temporary file beside FILE
// and renamed over it only when complete, so a failed, interrupted or killed
// run never leaves a half-written report (an existing FILE stays as it was).
#pragma once
#include <cstdio>
#include <string>

// Standard output for "" and "-"; a device, FIFO or socket (e.g. /dev/null)
// is written directly, as there is nothing to rename over.
class ReportFile {
 public:
  // Creates the temporary file; throws exactvmaf::Error naming `path` when it
  // cannot. SIGINT, SIGTERM and SIGHUP remove it before the process ends.
  explicit ReportFile(const std::string& path);
  ~ReportFile();  // removes the temporary file unless commit() succeeded
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;

  std::FILE* stream() const { return stream_; }
  // Flushes, closes and renames; throws exactvmaf::Error on any failure.
  void commit();
  // Throws exactvmaf::Error for a failed write (errno names why).
  [[noreturn]] void fail_write();

 private:
  void discard();
  std::string path_, shown_, temp_;  // the file replaced, the name as given, the temporary file
  std::FILE* stream_ = stdout;
  bool owned_ = false;
};
