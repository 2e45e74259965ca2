#include "io/stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "exactvmaf/error.hpp"

namespace exactvmaf::io {

std::uint64_t ByteSource::skip(std::uint64_t n) {
  std::uint8_t scratch[16384];
  std::uint64_t done = 0;
  while (done < n) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n - done, sizeof scratch));
    const std::size_t got = read_some(scratch, want);
    if (got == 0) break;
    done += got;
  }
  return done;
}

namespace {

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, bool owned, std::string name, bool regular)
      : fd_(fd), owned_(owned), name_(std::move(name)), regular_(regular) {}
  ~FdSource() override {
    if (owned_) ::close(fd_);
  }

  std::size_t read_some(std::uint8_t* dst, std::size_t n) override {
    // Linux read() moves at most ~2 GiB per call.
    n = std::min<std::size_t>(n, std::size_t{1} << 30);
    for (;;) {
      const ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      throw Error(name_ + ": read error: " + std::strerror(errno));
    }
  }

  std::optional<std::uint64_t> remaining() const override {
    if (!regular_) return std::nullopt;
    struct stat st;
    if (::fstat(fd_, &st) != 0) return std::nullopt;
    const off_t pos = ::lseek(fd_, 0, SEEK_CUR);
    if (pos < 0 || pos > st.st_size) return pos < 0 ? std::nullopt : std::optional<std::uint64_t>(0);
    return static_cast<std::uint64_t>(st.st_size - pos);
  }

  bool positional() const override { return regular_; }
  std::uint64_t position() const override {
    const off_t pos = ::lseek(fd_, 0, SEEK_CUR);
    return pos < 0 ? 0 : static_cast<std::uint64_t>(pos);
  }
  std::size_t read_at(std::uint8_t* dst, std::size_t n, std::uint64_t offset) const override {
    std::size_t done = 0;
    while (done < n) {
      const std::size_t want = std::min<std::size_t>(n - done, std::size_t{1} << 30);
      const ssize_t r = ::pread(fd_, dst + done, want, static_cast<off_t>(offset + done));
      if (r == 0) break;
      if (r < 0) {
        if (errno == EINTR) continue;
        throw Error(name_ + ": read error: " + std::strerror(errno));
      }
      done += static_cast<std::size_t>(r);
    }
    return done;
  }

  std::uint64_t skip(std::uint64_t n) override {
    if (!regular_) return ByteSource::skip(n);
    // Seek, but never past the end of the file.
    const std::uint64_t left = remaining().value_or(0);
    const std::uint64_t step = std::min(n, left);
    if (::lseek(fd_, static_cast<off_t>(step), SEEK_CUR) < 0)
      throw Error(name_ + ": seek error: " + std::strerror(errno));
    return step;
  }

 private:
  int fd_;
  bool owned_;
  std::string name_;
  bool regular_;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(const std::uint8_t* data, std::size_t size, std::size_t max_chunk)
      : data_(data), size_(size), max_chunk_(max_chunk) {}
  std::size_t read_some(std::uint8_t* dst, std::size_t n) override {
    std::size_t k = std::min(n, size_ - pos_);
    if (max_chunk_ > 0) k = std::min(k, max_chunk_);
    if (k > 0) std::memcpy(dst, data_ + pos_, k);
    pos_ += k;
    return k;
  }
  std::optional<std::uint64_t> remaining() const override {
    // A chunked source stands in for a pipe: its size is not known.
    if (max_chunk_ > 0) return std::nullopt;
    return size_ - pos_;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, pos_ = 0, max_chunk_;
};

}  // namespace

std::unique_ptr<ByteSource> open_file_source(const std::string& path) {
  if (path == "-") {
    struct stat st;
    const bool regular = ::fstat(0, &st) == 0 && S_ISREG(st.st_mode);
    return std::make_unique<FdSource>(0, false, path, regular);
  }
  if (path.empty()) throw Error("input path is empty");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw Error(path + ": no such file");
    throw Error(path + ": cannot open: " + std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw Error(path + ": cannot stat: " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": is a directory, not a video file");
  }
  const bool regular = S_ISREG(st.st_mode);
  if (regular) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::make_unique<FdSource>(fd, true, path, regular);
}

std::unique_ptr<ByteSource> make_memory_source(const std::uint8_t* data, std::size_t size,
                                               std::size_t max_chunk) {
  return std::make_unique<MemorySource>(data, size, max_chunk);
}

InputStream::InputStream(std::unique_ptr<ByteSource> source, std::string name)
    : source_(std::move(source)), name_(std::move(name)), buf_(kBufferSize) {}

bool InputStream::fill() {
  if (at_eof_) return false;
  if (pos_ > 0) {  // keep unread bytes at the front
    std::memmove(buf_.data(), buf_.data() + pos_, buffered());
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == buf_.size()) return true;
  const std::size_t got = source_->read_some(buf_.data() + end_, buf_.size() - end_);
  if (got == 0) {
    at_eof_ = true;
    return false;
  }
  end_ += got;
  return true;
}

std::size_t InputStream::read(void* dst_void, std::size_t n) {
  auto* dst = static_cast<std::uint8_t*>(dst_void);
  std::size_t done = std::min(n, buffered());
  if (done > 0) std::memcpy(dst, buf_.data() + pos_, done);
  pos_ += done;
  while (done < n && !at_eof_) {
    const std::size_t want = n - done;
    if (want >= buf_.size()) {
      // Large request: straight into the destination, looping over short reads.
      const std::size_t got = source_->read_some(dst + done, want);
      if (got == 0) at_eof_ = true;
      done += got;
    } else {
      if (!fill()) break;
      const std::size_t k = std::min(want, buffered());
      std::memcpy(dst + done, buf_.data() + pos_, k);
      pos_ += k;
      done += k;
    }
  }
  return done;
}

int InputStream::get() {
  if (buffered() == 0 && !fill()) return -1;
  return buf_[pos_++];
}

std::size_t InputStream::peek(std::uint8_t* dst, std::size_t n) {
  n = std::min(n, buf_.size());
  while (buffered() < n && fill()) {
  }
  const std::size_t k = std::min(n, buffered());
  std::memcpy(dst, buf_.data() + pos_, k);
  return k;
}

std::uint64_t InputStream::skip(std::uint64_t n) {
  const std::size_t from_buffer = static_cast<std::size_t>(std::min<std::uint64_t>(n, buffered()));
  pos_ += from_buffer;
  std::uint64_t done = from_buffer;
  if (done < n && !at_eof_) {
    const std::uint64_t got = source_->skip(n - done);
    if (got < n - done) at_eof_ = true;
    done += got;
  }
  return done;
}

std::optional<std::uint64_t> InputStream::remaining() const {
  const auto left = source_->remaining();
  if (!left) return std::nullopt;
  return *left + buffered();
}

std::size_t ByteSource::read_at(std::uint8_t*, std::size_t, std::uint64_t) const {
  throw InternalError("internal: positional read on a stream that has none");
}

std::size_t InputStream::read_at(void* dst, std::size_t n, std::uint64_t offset) const {
  return source_->read_at(static_cast<std::uint8_t*>(dst), n, offset);
}

}  // namespace exactvmaf::io
