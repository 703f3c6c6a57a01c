// torch.hash_tensor (mode 0, the only one): the xor of the elements' bit patterns as uint64, over `dim` (every
// dimension when empty). ATen defines the pattern as the element's value widened to its 64-bit type (integers and
// bool to int64, floating dtypes to double) and reinterpreted. ATen gives it a CPU and a CUDA kernel only, so
// without this it took the CPU fallback. Composed from native ops: the widening conversion, a reinterpreting view,
// and an xor reduction by halving (the reduced dimensions merged into one last dimension, whose two halves are
// xor-ed together until one column is left; an odd column is folded into the first), ceil(log2 n) elementwise
// launches. xor being associative and commutative, the result is the CPU's exactly, whatever the order.
// Dtypes the CPU kernel refuses (complex, uint16/32/64, float8) keep ATen's route and its error.
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <torch/library.h>

#include <optional>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// The dtypes of ATen's CPU kernel (xor_sum_cpu).
bool hashable(at::ScalarType t) {
  switch (t) {
    case at::kBool: case at::kByte: case at::kChar: case at::kShort: case at::kInt: case at::kLong:
    case at::kHalf: case at::kBFloat16: case at::kFloat: case at::kDouble:
      return true;
    default:
      return false;
  }
}

// Each element's 64-bit pattern, as int64: the value widened (exactly) to double or int64, then reinterpreted.
at::Tensor bit_patterns(const at::Tensor& self) {
  if (at::isFloatingType(self.scalar_type())) return self.to(at::kDouble).view(at::kLong);
  return self.to(at::kLong);
}

// The xor of `rows` along its last dimension (size >= 1), keeping it as a dimension of 1.
at::Tensor xor_last_dim(at::Tensor rows) {
  while (rows.size(-1) > 1) {
    const int64_t n = rows.size(-1), half = n / 2;
    at::Tensor folded = rows.narrow(-1, 0, half).bitwise_xor(rows.narrow(-1, half, half));
    if (n % 2 == 1) folded.narrow(-1, 0, 1).bitwise_xor_(rows.narrow(-1, n - 1, 1));
    rows = folded;
  }
  return rows;
}

std::optional<at::Tensor> native_hash_tensor(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, int64_t mode) {
  if (!hashable(self.scalar_type())) return std::nullopt;
  TORCH_CHECK(mode == 0, "Unknown hash_tensor mode: ", mode);
  if (self.numel() == 0) at::native::zero_numel_check_dims(self, dim, "hash_tensor");
  const int64_t ndim = self.dim();
  const auto reduced = at::dim_list_to_bitset(dim, ndim);  // wraps dims; ATen's error for a repeated one
  const bool all = dim.empty();
  // The kept dimensions first, the reduced ones last, merged into one.
  std::vector<int64_t> order, kept_sizes, result_sizes;
  int64_t reduced_numel = 1;
  for (int64_t d = 0; d < ndim; ++d) {
    if (all || reduced[d]) {
      reduced_numel *= self.size(d);
      if (keepdim) result_sizes.push_back(1);
    } else {
      order.push_back(d);
      kept_sizes.push_back(self.size(d));
      result_sizes.push_back(self.size(d));
    }
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (all || reduced[d]) order.push_back(d);
  }
  std::vector<int64_t> rows_shape = kept_sizes;
  rows_shape.push_back(reduced_numel);
  const at::Tensor rows = bit_patterns(self).permute(order).reshape(rows_shape);
  return xor_last_dim(rows).reshape(result_sizes).view(at::kUInt64);
}

bool native_hash_tensor_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, int64_t mode, at::Tensor& out) {
  return write_out(native_hash_tensor(self, dim, keepdim, mode), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, hash_tensor, "hash_tensor", launches(), native_hash_tensor);
  HAL_NATIVE(m, hash_tensor_out, "hash_tensor.out", launches(), native_hash_tensor_out);
}

}  // namespace
}  // namespace torch_hal::native
