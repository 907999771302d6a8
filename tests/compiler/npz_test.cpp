// The .npz reader on archives numpy wrote (tests/data/npz/, scripts/make_npz_fixtures.py): stored
// and deflated members, every dtype, and one exact error line for each kind of damage.
#include <gtest/gtest.h>

#include "npu/compiler/frontend/npz.h"
#include "npu/support/file_io.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::errorOf;
using testing::sourcePath;

std::filesystem::path fixture(const std::string& name) {
  return sourcePath("tests/data/npz") / name;
}

std::string fixtureText(const std::string& name) {
  return fixture(name).string();
}

/// The arrays of `file` by name, checked to be `names` in the archive's order.
std::vector<NpzArray> readChecked(const std::string& file, std::vector<std::string> names) {
  std::vector<NpzArray> arrays = readNpz(fixture(file));
  std::vector<std::string> got;
  for (const NpzArray& a : arrays) {
    got.push_back(a.name);
  }
  EXPECT_EQ(got, names) << file;
  return arrays;
}

/// x and g of make_npz_fixtures.py's two_inputs(3).
void expectTwoInputs(const std::vector<NpzArray>& arrays) {
  ASSERT_EQ(arrays.size(), 2U);
  const Tensor& x = arrays[0].tensor;
  EXPECT_EQ(x.shape, (Shape{3, 2, 3, 3}));
  ASSERT_EQ(x.data.floats().size(), 54U);
  for (std::size_t i = 0; i < 54; ++i) {
    EXPECT_EQ(x.data.floats()[i], static_cast<float>(i) / 4) << i;
  }
  const Tensor& g = arrays[1].tensor;
  EXPECT_EQ(g.shape, (Shape{3, 4, 1, 1}));
  const std::vector<float> base = {1.0F, -2.0F, 0.5F, 4.0F};
  for (std::size_t k = 0; k < 3; ++k) {
    for (std::size_t c = 0; c < 4; ++c) {
      EXPECT_EQ(g.data.floats()[k * 4 + c], base[c] + static_cast<float>(k));
    }
  }
}

TEST(Npz, StoredArchiveFromNumpySavez) {
  expectTwoInputs(readChecked("stored.npz", {"x", "g"}));
}

TEST(Npz, CompressedArchiveFromNumpySavezCompressed) {
  expectTwoInputs(readChecked("compressed.npz", {"x", "g"}));
}

TEST(Npz, EveryDtypeTheNpyReaderTakes) {
  std::vector<NpzArray> arrays = readChecked("dtypes.npz", {"f64", "i64", "i32"});
  ASSERT_EQ(arrays.size(), 3U);
  EXPECT_EQ(arrays[0].tensor.shape, (Shape{1, 2}));
  EXPECT_EQ(arrays[0].tensor.data.floats()[1], -1.25F);  // float64 narrowed to float32
  EXPECT_EQ(arrays[1].tensor.data.dtype(), DType::Int64);
  EXPECT_EQ(arrays[1].tensor.shape, (Shape{3, 4}));
  EXPECT_EQ(arrays[1].tensor.data.int64s()[11], 11);
  EXPECT_EQ(arrays[2].tensor.data.dtype(), DType::Int32);
  EXPECT_EQ(arrays[2].tensor.data.int32s()[1], -8);
}

TEST(Npz, FromBytesNamesTheGivenSource) {
  std::vector<std::uint8_t> bytes = readBinaryFile(fixture("compressed.npz"));
  expectTwoInputs(parseNpz(bytes, "memory.npz"));
  bytes.resize(bytes.size() - 30);  // the end of the central directory
  EXPECT_EQ(errorOf([&] { parseNpz(bytes, "memory.npz"); }),
            "memory.npz: not a readable .npz (zip) archive: Not a zip archive");
}

TEST(Npz, DamagedArchivesHaveOneClearError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad-crc.npz", ": array 'x': damaged data: CRC error"},
      {"truncated.npz", ": not a readable .npz (zip) archive: Not a zip archive"},
      {"not-a-zip.npz", ": not a readable .npz (zip) archive: Not a zip archive"},
      {"empty-archive.npz", ": the .npz archive holds no arrays"},
      {"member-not-npy.npz",
       ": member 'notes.txt' is not an array (a .npz holds one NAME.npy per array, as "
       "numpy.savez writes)"},
      {"duplicate-name.npz", ": not a readable .npz (zip) archive: two members have the same name"},
      {"member-not-npy-data.npz", ": array 'x': not a .npy file (bad magic)"},
      {"size-understated.npz", ": array 'x': holds more than the 100 bytes its zip entry states"},
  };
  for (const auto& [file, message] : cases) {
    EXPECT_EQ(errorOf([&] { readNpz(fixture(file)); }), fixtureText(file) + message) << file;
  }
  EXPECT_EQ(errorOf([&] { readNpz(fixture("missing.npz")); }),
            fixtureText("missing.npz") + ": cannot open for reading: No such file or directory");
}

}  // namespace
}  // namespace npu::compiler
