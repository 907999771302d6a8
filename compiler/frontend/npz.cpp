// .npz reading through libzip: the archive's members are .npy files, parsed by parseNpy.
#include "npu/compiler/frontend/npz.h"

#include <fmt/format.h>
#include <zip.h>

#include <algorithm>
#include <memory>

#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/ir/types.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::compiler {
namespace {

/// The largest member read: a .npy of kMaxTensorElements 8-byte values and a generous header.
/// parseNpy refuses anything larger anyway; the bound keeps a lying size from being believed.
constexpr std::uint64_t kMaxMemberBytes =
    static_cast<std::uint64_t>(kMaxTensorElements) * 8 + (std::uint64_t{1} << 20);

/// Bytes decompressed a call: memory grows with the data a member really holds, never with the
/// size its entry claims.
constexpr std::size_t kChunkBytes = std::size_t{1} << 16;

/// Member names quoted in errors are cut after this many characters (a zip name may hold 65,535).
constexpr std::size_t kShownNameLength = 120;

std::string shownName(std::string_view name) {
  if (name.size() <= kShownNameLength) {
    return std::string(name);
  }
  return fmt::format("{}...", name.substr(0, kShownNameLength));
}

struct ArchiveDiscard {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct MemberClose {
  void operator()(zip_file_t* member) const { zip_fclose(member); }
};
using Archive = std::unique_ptr<zip_t, ArchiveDiscard>;
using Member = std::unique_ptr<zip_file_t, MemberClose>;

/// libzip's text for `error`, which is released.
std::string takeErrorText(zip_error_t& error) {
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

/// Opens the zip archive in `bytes` (which must outlive it), with libzip's consistency checks.
Archive openArchive(std::span<const std::uint8_t> bytes, const std::string& file) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (source == nullptr) {
    fail("{}: cannot read the .npz archive ({})", file, takeErrorText(error));
  }
  // ZIP_CHECKCONS: local headers must agree with the central directory, names must be unique.
  zip_t* archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (archive == nullptr) {
    zip_source_free(source);                            // still ours when the open failed
    if (zip_error_code_zip(&error) == ZIP_ER_EXISTS) {  // libzip's text: "File already exists"
      zip_error_fini(&error);
      fail("{}: not a readable .npz (zip) archive: two members have the same name", file);
    }
    fail("{}: not a readable .npz (zip) archive: {}", file, takeErrorText(error));
  }
  zip_error_fini(&error);
  return Archive(archive);
}

/// The uncompressed bytes of member `index`, checked against the size its entry states; libzip
/// checks the CRC-32 at the end of the data.
std::vector<std::uint8_t> memberBytes(zip_t* archive, zip_uint64_t index, zip_uint64_t size,
                                      const std::string& where) {
  Member member(zip_fopen_index(archive, index, 0));
  if (!member) {
    fail("{}: cannot be read: {}", where, zip_error_strerror(zip_get_error(archive)));
  }
  std::vector<std::uint8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(std::min<zip_uint64_t>(size, kChunkBytes)));
  std::vector<std::uint8_t> chunk(kChunkBytes);
  for (;;) {
    const zip_int64_t got = zip_fread(member.get(), chunk.data(), chunk.size());
    if (got < 0) {
      fail("{}: damaged data: {}", where, zip_error_strerror(zip_file_get_error(member.get())));
    }
    if (got == 0) {
      break;
    }
    if (bytes.size() + static_cast<std::uint64_t>(got) > size) {
      fail("{}: holds more than the {} bytes its zip entry states", where, size);
    }
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + got);
  }
  if (bytes.size() != size) {
    fail("{}: holds {} bytes, its zip entry states {}", where, bytes.size(), size);
  }
  return bytes;
}

/// The array name of member `name` ("x.npy" -> "x"); throws for anything but `NAME.npy`.
std::string arrayName(std::string_view name, const std::string& file) {
  constexpr std::string_view kSuffix = ".npy";
  if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) {
    fail(
        "{}: member '{}' is not an array (a .npz holds one NAME.npy per array, as numpy.savez "
        "writes)",
        file, shownName(name));
  }
  return std::string(name.substr(0, name.size() - kSuffix.size()));
}

}  // namespace

std::vector<NpzArray> readNpz(const std::filesystem::path& path) {
  return parseNpz(readBinaryFile(path), path.string());
}

std::vector<NpzArray> parseNpz(std::span<const std::uint8_t> bytes, std::string_view source) {
  const std::string file(source);
  Archive archive = openArchive(bytes, file);
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  if (count <= 0) {
    fail("{}: the .npz archive holds no arrays", file);
  }
  std::vector<NpzArray> arrays;
  for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(count); ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), i, 0, &stat) != 0 || (stat.valid & ZIP_STAT_NAME) == 0 ||
        (stat.valid & ZIP_STAT_SIZE) == 0) {
      fail("{}: member {} of the .npz archive is unreadable: {}", file, i,
           zip_error_strerror(zip_get_error(archive.get())));
    }
    std::string name = arrayName(stat.name, file);
    const std::string where = fmt::format("{}: array '{}'", file, shownName(name));
    if (stat.size > kMaxMemberBytes) {
      fail("{}: {} bytes, above the limit of {} for one .npy array", where, stat.size,
           kMaxMemberBytes);
    }
    std::vector<std::uint8_t> member = memberBytes(archive.get(), i, stat.size, where);
    arrays.push_back({std::move(name), parseNpy(member, where)});
  }
  return arrays;
}

}  // namespace npu::compiler
