// Range check of an int8 output stage.
#include "npu/golden/output_stage.h"

#include "npu/support/error.h"

namespace npu::golden {

void checkOutputStage(const OutputStage& stage, const char* op) {
  if (stage.zeroPoint < -128 || stage.zeroPoint > 127) {
    fail("{}: output zero point {} is outside [-128, 127]", op, stage.zeroPoint);
  }
  if (stage.clipLo < -128 || stage.clipHi > 127 || stage.clipLo > stage.clipHi) {
    fail("{}: clip range [{}, {}] must be a non-empty part of [-128, 127]", op, stage.clipLo,
         stage.clipHi);
  }
}

}  // namespace npu::golden
