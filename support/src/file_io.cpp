// File helpers: read fully or fail with the path; write a plain file atomically through a rename,
// anything else (a device, a FIFO, a symlink, "-" for standard output) in place.
#include "npu/support/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "npu/support/error.h"

namespace npu {
namespace {

std::string readAll(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    fail("{}: is a directory, expected a file", path.string());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fail("{}: cannot open for reading: {}", path.string(), std::strerror(errno));
  }
  // Read in chunks up to the bound: a path naming /dev/zero or an endless FIFO (a hostile
  // bundle's symlink, say) must end in an error, not in exhausted memory.
  std::string data;
  std::vector<char> chunk(std::size_t{1} << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (data.size() + got > kMaxReadFileBytes) {
      fail("{}: larger than the {} GiB a file read may hold", path.string(),
           kMaxReadFileBytes >> 30);
    }
    data.append(chunk.data(), got);
  }
  if (in.bad()) {
    fail("{}: read error", path.string());
  }
  return data;
}

/// Writes all of `data` to `fd`; false (errno set) on any failure, a full device included.
bool writeFd(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// The standard stream (STDOUT_FILENO or STDERR_FILENO) that `path` names, or -1: /dev/stdout
/// and /dev/stderr, or any other link to the file a stream is open on. Such a path is written
/// through the stream's own descriptor: opening it again would start a second file offset at 0
/// (and O_TRUNC would cut) what the process already wrote when the stream is redirected to a file.
int standardStreamOf(const std::filesystem::path& path) {
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) {
    return -1;
  }
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat stream {};
    if (::fstat(fd, &stream) == 0 && stream.st_dev == target.st_dev &&
        stream.st_ino == target.st_ino) {
      return fd;
    }
  }
  return -1;
}

/// Writes through an existing path that is not a plain file (a character device such as
/// /dev/stdout or /dev/full, a FIFO, a symlink): in place, never replacing it.
void writeInPlace(const std::filesystem::path& path, const char* data, std::size_t size) {
  if (const int stream = standardStreamOf(path); stream >= 0) {
    std::fflush(stream == STDOUT_FILENO ? stdout : stderr);
    if (!writeFd(stream, data, size)) {
      fail("{}: write failed: {}", path.string(), std::strerror(errno));
    }
    return;
  }
  // O_TRUNC: a symlink's regular target must not keep the tail of longer old contents
  // (devices and FIFOs ignore it).
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    fail("{}: cannot open for writing: {}", path.string(), std::strerror(errno));
  }
  const bool written = writeFd(fd, data, size);
  const int writeErrno = errno;
  const bool closed = ::close(fd) == 0;
  const int closeErrno = errno;
  if (!written || !closed) {
    fail("{}: write failed: {}", path.string(), std::strerror(written ? closeErrno : writeErrno));
  }
}

/// A regular file: written to PATH.tmp, synced, then renamed over PATH, so a failed write never
/// leaves a half-written file under the final name.
void writeReplacing(const std::filesystem::path& path, const char* data, std::size_t size) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    fail("{}: cannot open for writing: {}", path.string(), std::strerror(errno));
  }
  const bool written = writeFd(fd, data, size) && ::fsync(fd) == 0;
  const int writeErrno = errno;
  const bool closed = ::close(fd) == 0;
  const int closeErrno = errno;
  if (!written || !closed) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    fail("{}: write failed: {}", path.string(), std::strerror(written ? closeErrno : writeErrno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    fail("{}: cannot move the written file into place: {}", path.string(), reason);
  }
}

void writeAll(const std::filesystem::path& path, const char* data, std::size_t size) {
  if (path == "-") {  // standard output, as the command-line convention has it
    std::fflush(stdout);
    if (!writeFd(STDOUT_FILENO, data, size)) {
      fail("standard output: write failed: {}", std::strerror(errno));
    }
    return;
  }
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::symlink_status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    if (std::filesystem::is_directory(status)) {
      fail("{}: is a directory, expected a file", path.string());
    }
    writeInPlace(path, data, size);
    return;
  }
  writeReplacing(path, data, size);
}

}  // namespace

std::vector<std::uint8_t> readBinaryFile(const std::filesystem::path& path) {
  std::string data = readAll(path);
  return {data.begin(), data.end()};
}

std::string readTextFile(const std::filesystem::path& path) {
  return readAll(path);
}

void writeBinaryFile(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  writeAll(path, reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

bool isStandardOutput(const std::filesystem::path& path) {
  return path == "-" || (!path.empty() && standardStreamOf(path) == STDOUT_FILENO);
}

void writeTextFile(const std::filesystem::path& path, std::string_view text) {
  writeAll(path, text.data(), text.size());
}

void createDirectories(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    fail("{}: cannot create directory: {}", dir.string(),
         ec ? ec.message() : std::string("a file of that name exists"));
  }
}

}  // namespace npu
