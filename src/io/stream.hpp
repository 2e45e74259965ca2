// Byte input for the readers: a file descriptor (file, named pipe, stdin) or
// a memory buffer (tests, fuzzing), with a small buffer for header parsing
// and large reads that go straight to the caller's memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace exactvmaf::io {

// Where the bytes come from. read_some may return fewer bytes than asked
// (pipes do); 0 means the end of input. I/O errors throw Error.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read_some(std::uint8_t* dst, std::size_t n) = 0;
  // Bytes left, when known up front (regular files, memory); else nullopt.
  virtual std::optional<std::uint64_t> remaining() const { return std::nullopt; }
  // Skips up to n bytes, never past the end; returns how many were skipped.
  virtual std::uint64_t skip(std::uint64_t n);
  // Regular files: reads at an absolute file offset, thread-safe and without
  // moving the read position (pread). Returns fewer bytes only at the end.
  virtual bool positional() const { return false; }
  virtual std::size_t read_at(std::uint8_t* dst, std::size_t n, std::uint64_t offset) const;
  // The current read position as a file offset (positional sources).
  virtual std::uint64_t position() const { return 0; }
};

// Opens `path` for reading ("-" is standard input, not closed afterwards).
// Throws Error naming the path: missing, a directory, permission, ...
std::unique_ptr<ByteSource> open_file_source(const std::string& path);

// A view of caller-owned memory. max_chunk > 0 caps each read_some, to
// exercise the short-read paths the way a pipe would.
std::unique_ptr<ByteSource> make_memory_source(const std::uint8_t* data, std::size_t size,
                                               std::size_t max_chunk = 0);

class InputStream {
 public:
  InputStream(std::unique_ptr<ByteSource> source, std::string name);
  InputStream(InputStream&&) noexcept = default;
  InputStream& operator=(InputStream&&) noexcept = default;

  // The name used in messages (the path as given, "-" for stdin).
  const std::string& name() const { return name_; }
  // Reads n bytes unless the input ends first; returns the count read.
  // Requests larger than the buffer go to the source directly.
  std::size_t read(void* dst, std::size_t n);
  // One byte, or -1 at the end of input.
  int get();
  // Copies up to n (<= buffer size) bytes ahead without consuming them;
  // returns fewer only at the end of input.
  std::size_t peek(std::uint8_t* dst, std::size_t n);
  // Skips n bytes unless the input ends first; returns the count skipped.
  std::uint64_t skip(std::uint64_t n);
  // Bytes left when known (regular files); nullopt for pipes and stdin.
  std::optional<std::uint64_t> remaining() const;
  // Positional access (regular files): tell() is the file offset of the
  // next byte read() would return; read_at reads at an absolute offset.
  bool positional() const { return source_->positional(); }
  std::uint64_t tell() const { return source_->position() - buffered(); }
  std::size_t read_at(void* dst, std::size_t n, std::uint64_t offset) const;

  static constexpr std::size_t kBufferSize = 64 * 1024;

 private:
  std::size_t buffered() const { return end_ - pos_; }
  // Reads more into the buffer after the bytes still held; false at the end.
  bool fill();

  std::unique_ptr<ByteSource> source_;
  std::string name_;
  std::vector<std::uint8_t> buf_;
  std::size_t pos_ = 0, end_ = 0;
  bool at_eof_ = false;
};

}  // namespace exactvmaf::io
