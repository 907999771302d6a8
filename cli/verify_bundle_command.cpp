// `npu verify-bundle BUNDLE_DIR`: checks a bring-up bundle the way a lab would before loading a
// board from it, with no RTL: readBundle checks every file's CRC-32 and every manifest field
// against the program and its embedded hardware config, then the program is replayed on the timed
// simulator and the final DDR and cycle count are compared with the bundle's expected region
// images and expected cycles. Any disagreement is an error naming the field, file or region.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "commands.h"
#include "npu/runtime/engine.h"
#include "npu/runtime/export_bundle.h"
#include "npu/support/error.h"

namespace npu::cli {

void addVerifyBundleCommand(CLI::App& app, Action& action) {
  auto dir = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "verify-bundle",
      "Check an export bundle (CRCs, manifest fields) and replay it on the timed simulator");
  command->add_option("BUNDLE", *dir, "Bundle directory written by npu export")->required();
  command->callback([&action, dir] {
    action = [dir] {
      const std::filesystem::path path(*dir);
      if (!std::filesystem::is_directory(path)) {
        fail("{}: not a bundle directory", path.string());
      }
      const runtime::Bundle bundle = runtime::readBundle(path);
      const runtime::EngineRun run = runtime::runOnEngine(bundle.program, runtime::Engine::Timed);
      if (run.fault) {
        fail(ErrorKind::Verification, "{}: {}", path.string(), *run.fault);
      }
      runtime::checkRunAgainstBundle(path, bundle, run.ddr, run.totalCycles, "the timed simulator");
      fmt::print(
          "bundle {}: manifest, {} files and CRCs consistent with {} ({} instructions for {}); the "
          "timed simulator ends with every region's expected image in {} cycles, as expected\n",
          path.string(), 2 + 2 * bundle.regions.size() + bundle.layerDumps.size(),
          bundle.programFile, bundle.instructions, bundle.hardware, run.totalCycles);
      return 0;
    };
  });
}

}  // namespace npu::cli
