// MappedFile: mmap with the same error messages as the project's file helpers.
#include "mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "npu/support/error.h"

namespace npu::compiler {

MappedFile::MappedFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    fail("{}: is a directory, expected a file", path.string());
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fail("{}: cannot open for reading: {}", path.string(), std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    fail("{}: cannot read: {}", path.string(), std::strerror(error));
  }
  m_size = static_cast<std::size_t>(info.st_size);
  if (m_size > 0) {
    void* data = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      int error = errno;
      ::close(fd);
      fail("{}: cannot read: {}", path.string(), std::strerror(error));
    }
    m_data = static_cast<const std::uint8_t*>(data);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (m_data != nullptr) {
    ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
  }
}

}  // namespace npu::compiler
