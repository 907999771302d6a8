// An output folder that appears whole or not at all: bundles and report folders are assembled in a
// hidden sibling and renamed into place once complete (docs/reliability.md, "Whole or nothing").
#pragma once

#include <filesystem>
#include <initializer_list>

namespace npu {

/// Stages the contents of `target` in `<parent>/.<name>.partial-<pid>`. commit() renames the
/// staging folder to `target` (an existing `target` is replaced only then); destroying an
/// uncommitted StagedDirectory (an exception, a failed write) removes the staging folder, so a
/// failed run leaves nothing under the name that was asked for. A process killed outright leaves
/// only the hidden `.partial-<pid>` folder, which no tool mistakes for a finished output.
class StagedDirectory {
 public:
  /// An existing, non-empty `target` is replaced only when it holds one of `outputMarkers`
  /// (relative paths: what shows it is an earlier output of the same kind, e.g. manifest.yaml);
  /// any other folder there is refused at once, so a mistyped --out never deletes a user's files.
  StagedDirectory(std::filesystem::path target,
                  std::initializer_list<std::filesystem::path> outputMarkers);
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;
  StagedDirectory(StagedDirectory&&) = delete;
  StagedDirectory& operator=(StagedDirectory&&) = delete;

  /// Where to write the contents until commit().
  [[nodiscard]] const std::filesystem::path& path() const { return m_staging; }
  /// The folder the contents will have once committed.
  [[nodiscard]] const std::filesystem::path& target() const { return m_target; }

  /// Moves the staged contents to target(); throws npu::Error naming the path on failure (the
  /// staging folder is then removed and an existing target left as it was).
  void commit();

 private:
  std::filesystem::path m_target;
  std::filesystem::path m_staging;
  bool m_committed = false;
};

}  // namespace npu
