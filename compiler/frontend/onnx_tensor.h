// Private to the ONNX front end: TensorProto elements, inline or external.
#pragma once

#include <filesystem>
#include <string>

#include "npu/compiler/ir/tensor_data.h"
#include "npu/compiler/ir/types.h"

namespace onnx {
class TensorProto;
}

namespace npu::compiler {

/// A decoded TensorProto.
struct OnnxTensor {
  DType dtype = DType::Float32;
  Shape shape;
  TensorData data;
};

/// Decodes `tensor` (raw_data, the typed repeated fields, or external data under `baseDir`);
/// `what` names it in errors, e.g. "initializer 'conv1.weight'". DOUBLE is narrowed to f32.
OnnxTensor decodeTensor(const onnx::TensorProto& tensor, const std::filesystem::path& baseDir,
                        const std::string& what);

}  // namespace npu::compiler
