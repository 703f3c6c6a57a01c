// tril and triu (functional, in place, out=): one launch of the adapter's TRIL/TRIU kernel, which keeps the
// triangle of the last two dimensions and zeroes the rest. Causal attention masks are made this way.
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "dispatch/output_overlap.h"

namespace torch_hal::native {
namespace {

void check_rank(const at::Tensor& self, bool upper) {
  TORCH_CHECK(self.dim() >= 2, upper ? "triu" : "tril", ": input tensor must have at least 2 dimensions");
}

// The kernel only moves elements, so a complex64 tensor runs as the int64 tensor of its bit patterns (the ABI
// has no complex dtype; a [..., 2] real view would put the pair in the last two dimensions). Conjugate or
// negative bits, whose values are not the stored ones, and complex128 (no 16-byte integer) take the usual route.
std::optional<at::Tensor> moved_as(const at::Tensor& t) {
  if (!t.is_complex()) return t;
  if (t.scalar_type() != at::kComplexFloat || t.is_conj() || t.is_neg()) return std::nullopt;
  return t.view(at::kLong);
}

// Output and input must be the same tensor or disjoint (adapter.h); anything else takes the usual route.
bool launch_triangle(bool upper, const at::Tensor& self, const at::Tensor& out, const c10::SymInt& diagonal) {
  if (!launchable_overlap(out, self)) return false;
  if (out.numel() == 0) return true;
  const auto input = moved_as(self), output = moved_as(out);
  if (!input.has_value() || !output.has_value()) return false;
  KernelArgs args;
  args.input(*input).output(*output).scalar(diagonal.guard_int(__FILE__, __LINE__));
  return launch(self.device().index(), upper ? HAL_OP_TRIU : HAL_OP_TRIL, args);
}

template <bool Upper>
std::optional<at::Tensor> triangle(const at::Tensor& self, c10::SymInt diagonal) {
  check_rank(self, Upper);
  at::Tensor out = at::empty(self.sizes(), self.options());
  if (!launch_triangle(Upper, self, out, diagonal)) return std::nullopt;
  return out;
}
template <bool Upper>
bool triangle_(at::Tensor& self, c10::SymInt diagonal) {
  check_rank(self, Upper);
  return launch_triangle(Upper, self, self, diagonal);
}
template <bool Upper>
bool triangle_out(const at::Tensor& self, c10::SymInt diagonal, at::Tensor& out) {
  check_rank(self, Upper);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ", self.scalar_type(),
              ", but got ", out.scalar_type(), " instead");
  at::native::resize_output(out, self.sizes());
  return launch_triangle(Upper, self, out, diagonal);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE_FORMS(m, tril, "tril", HAL_OP_TRIL, triangle, <false>);
  HAL_NATIVE_FORMS(m, triu, "triu", HAL_OP_TRIU, triangle, <true>);
}

}  // namespace
}  // namespace torch_hal::native
