// File helpers: read fully or fail with the path; write atomically through a rename.
#include "npu/support/file_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

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
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    fail("{}: read error", path.string());
  }
  return data;
}

void writeAll(const std::filesystem::path& path, const char* data, std::size_t size) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      fail("{}: cannot open for writing: {}", path.string(), std::strerror(errno));
    }
    out.write(data, static_cast<std::streamsize>(size));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      fail("{}: write failed", path.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    fail("{}: cannot move the written file into place", path.string());
  }
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
