// trace as the sum of the diagonal view. ATen gives trace a CPU kernel of its own, so without this it took the CPU
// fallback. sum gives the CPU's result dtype by itself: integers add up into int64, the others keep their dtype.
// Dtypes the CPU kernel does not take (bool, ...) keep ATen's route and its error.
#include <ATen/ops/sum.h>
#include <torch/library.h>

#include <optional>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

bool traceable(at::ScalarType t) {
  switch (t) {
    case at::kByte: case at::kChar: case at::kShort: case at::kInt: case at::kLong:
    case at::kHalf: case at::kBFloat16: case at::kFloat: case at::kDouble:
    case at::kComplexFloat: case at::kComplexDouble:
      return true;
    default:
      return false;
  }
}

std::optional<at::Tensor> native_trace(const at::Tensor& self) {
  if (!traceable(self.scalar_type())) return std::nullopt;
  TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return at::sum(self.diagonal());
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, trace, "trace", launches(), native_trace);
}

}  // namespace
}  // namespace torch_hal::native
