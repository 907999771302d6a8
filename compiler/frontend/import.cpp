// importModel: picks the front end by file extension.
#include "npu/compiler/frontend/import.h"

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/frontend/yaml_import.h"
#include "npu/support/error.h"

namespace npu::compiler {

Graph importModel(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  if (ext == ".onnx") {
    return importOnnx(path);
  }
  if (ext == ".yaml" || ext == ".yml") {
    return importGraphYaml(path);
  }
  fail("{}: unknown model format '{}' (expected .onnx, .yaml or .yml)", path.string(), ext);
}

}  // namespace npu::compiler
