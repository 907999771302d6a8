// Int8Tensor helpers.
#include "npu/golden/int8_tensor.h"

#include "npu/golden/float_tensor.h"
#include "npu/support/error.h"

namespace npu::golden {

Int8Tensor makeInt8Tensor(std::vector<std::int64_t> shape, std::int8_t value) {
  const std::int64_t count = elementCount(shape);
  return Int8Tensor{std::move(shape),
                    std::vector<std::int8_t>(static_cast<std::size_t>(count), value)};
}

void checkConsistent(const Int8Tensor& tensor, std::string_view op) {
  const std::int64_t count = elementCount(tensor.shape);
  if (count != static_cast<std::int64_t>(tensor.data.size())) {
    fail("{}: tensor of shape {} holds {} values, expected {}", op, shapeString(tensor.shape),
         tensor.data.size(), count);
  }
}

}  // namespace npu::golden
