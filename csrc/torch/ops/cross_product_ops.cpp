// linalg.cross (torch.cross): a x b along a dimension of size 3, from native index_select, multiplication and
// subtraction, component by component as ATen's kernel computes it (a1 b2 - a2 b1, ...), in the operands' dtype.
#include <ATen/ExpandUtils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

std::optional<at::Tensor> native_cross(const at::Tensor& self, const at::Tensor& other, int64_t dim) {
  TORCH_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), other.sizes());
  const int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(shape.size()));
  TORCH_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", dim, " must have length 3. ",
              "Got ", self.size(d), " and ", other.size(d));
  // Operands of different dtypes: the CPU kernel's error ("expected scalar type ..."), from the usual route.
  if (self.scalar_type() != other.scalar_type()) return std::nullopt;
  const at::ScalarType type = self.scalar_type();
  // Complex operands take the same composition: index_select moves them and the complex products and
  // difference are composed over their real views, the component formula being the same as ATen's.
  if (type == at::kBool) return std::nullopt;
  const at::Tensor a = self.expand(shape), b = other.expand(shape);
  const auto rotated = [&](const at::Tensor& t, int64_t first) {
    const at::Tensor order = at::empty({3}, at::TensorOptions().dtype(at::kLong));
    int64_t* p = order.data_ptr<int64_t>();
    for (int64_t k = 0; k < 3; ++k) p[k] = (first + k) % 3;
    return t.index_select(d, order.to(t.device()));
  };
  // Component k is a[k+1] b[k+2] - a[k+2] b[k+1].
  return rotated(a, 1).mul(rotated(b, 2)).sub(rotated(a, 2).mul(rotated(b, 1)));
}

bool native_cross_out(const at::Tensor& self, const at::Tensor& other, int64_t dim, at::Tensor& out) {
  return write_out(native_cross(self, other, dim), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, linalg_cross, "linalg_cross", launches(), native_cross);
  HAL_NATIVE(m, linalg_cross_out, "linalg_cross.out", launches(), native_cross_out);
}

}  // namespace
}  // namespace torch_hal::native
