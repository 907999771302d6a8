// isa-gen: writes the artefacts generated from the instruction table and a hardware config.
//   isa-gen sv-isa OUT.sv          SystemVerilog ISA package
//   isa-gen sv-config CONFIG OUT   SystemVerilog config package of one hardware YAML
//   isa-gen doc DOC.md             rewrites the generated field tables inside docs/isa.md
//   isa-gen doc-config DOC.md      rewrites the key table inside docs/hardware-config.md
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "npu/isa/generators.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "sv-isa" && argc == 3) {
      npu::writeTextFile(argv[2], npu::isa::generateIsaSvPackage());
    } else if (mode == "sv-config" && argc == 4) {
      npu::writeTextFile(argv[3],
                         npu::isa::generateConfigSvPackage(npu::isa::loadNpuConfig(argv[2])));
    } else if (mode == "doc" && argc == 3) {
      const std::string doc = npu::readTextFile(argv[2]);
      npu::writeTextFile(
          argv[2], npu::isa::spliceGeneratedTables(doc, npu::isa::generateIsaMarkdownTables()));
    } else if (mode == "doc-config" && argc == 3) {
      const std::string doc = npu::readTextFile(argv[2]);
      npu::writeTextFile(argv[2], npu::isa::spliceGeneratedTables(
                                      doc, npu::isa::generateConfigMarkdownTable(),
                                      npu::isa::kConfigTableBegin, npu::isa::kConfigTableEnd));
    } else {
      fmt::print(stderr,
                 "usage: isa-gen sv-isa OUT | sv-config CONFIG OUT | doc DOC.md | doc-config "
                 "DOC.md\n");
      return 2;
    }
  } catch (const npu::Error& e) {
    fmt::print(stderr, "isa-gen: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
