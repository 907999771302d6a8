// Calibration tables (docs/quantized-models.md): each tensor's scale and zero point, written by
// `--dump-calib` and read by `--calib-table` (ours as JSON, or a TensorRT calibration cache), and
// the given quantization a QDQ model brings.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/quant/calibrate.h"
#include "npu/golden/quantize.h"

namespace npu::compiler {

/// Activation quantization given from outside calibration, by value name ("<z>#preact" names the
/// input of the LUT activation that produced z, as calibrate() names it).
struct CalibrationTable {
  std::map<std::string, golden::QuantParams, std::less<>> tensors;
  /// Where the table came from, for notes ("calib.json", "the QDQ model m.onnx").
  std::string source;
  /// The table is a QDQ model's own (givenQuantization): it names many values the NPU never
  /// sees (DequantizeLinear outputs, host tensors), so unused entries are not worth a note.
  bool fromModel = false;

  bool empty() const { return tensors.empty(); }
};

/// Reads a calibration table: our JSON form (calibrationTableJson's; per tensor `scale` and
/// `zero_point`, or `min` and `max` with optional `symmetric`; `dtype: uint8` moves a zero point
/// in [0, 255] by -128), or a TensorRT calibration cache (a first line `TRT-...`, then `name:
/// <float bits in hex>` per tensor: symmetric, zero point 0). Throws Error naming the file and
/// the tensor for a malformed entry.
CalibrationTable loadCalibrationTable(const std::filesystem::path& path);

/// loadCalibrationTable on text in memory; `source` names it in messages.
CalibrationTable parseCalibrationTable(std::string_view text, const std::string& source);

/// The calibration result as our JSON table: per tensor the chosen scale and zero point, the
/// observed min/max and |x| percentiles, the method's range and the aligned range, the settings
/// and the alignment group; reading it back gives the same parameters bit for bit.
std::string calibrationTableJson(const CalibrationResult& result, std::string_view model);

/// The quantization a QDQ model gives its activations (Value::quant of non-constant values, set
/// by the ONNX front end), read before the front-end passes: every quantized value, and
/// "<z>#preact" for each LUT activation z = f(y) (or SiLU/hard-swish's y * g(y)) whose input y is
/// quantized, so a conv that absorbs the activation requantizes to y's parameters. Empty for a
/// float model.
CalibrationTable givenQuantization(const Graph& graph);

}  // namespace npu::compiler
