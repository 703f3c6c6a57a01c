// _prelu_kernel and its backward (the kernels under prelu, whose weight ATen's composite has already shaped to
// broadcast) from gt, where and mul. ATen gives both CPU kernels of their own, so without these they took the CPU
// fallback (nn.PReLU). The CPU kernels take one floating dtype for input and weight; anything else keeps ATen's
// route (its errors).
#include <ATen/ExpandUtils.h>
#include <ATen/ops/where.h>
#include <torch/library.h>

#include <optional>
#include <tuple>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

bool preluable(const at::Tensor& self, const at::Tensor& weight) {
  const at::ScalarType t = self.scalar_type();
  return t == weight.scalar_type() && (t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16);
}

// x > 0 ? x : w * x (a NaN input gives NaN either way)
std::optional<at::Tensor> native_prelu_kernel(const at::Tensor& self, const at::Tensor& weight) {
  if (!preluable(self, weight)) return std::nullopt;
  return at::where(self.gt(0), self, weight.mul(self));
}

// grad_x = x > 0 ? g : w * g, grad_w = x > 0 ? 0 : x * g, both of the broadcast shape of g, x and w, as the CPU
// kernel gives them (prelu's composite then sums grad_w down to the weight's shape).
std::optional<std::tuple<at::Tensor, at::Tensor>> native_prelu_kernel_backward(const at::Tensor& grad_output,
                                                                               const at::Tensor& self,
                                                                               const at::Tensor& weight) {
  if (!preluable(self, weight) || grad_output.scalar_type() != self.scalar_type()) return std::nullopt;
  const at::Tensor positive = self.gt(0);
  at::Tensor grad_self = at::where(positive, grad_output, weight.mul(grad_output));
  at::Tensor grad_weight = at::where(positive, 0, self.mul(grad_output));
  const auto shape = at::infer_size(grad_self.sizes(), grad_weight.sizes());
  if (grad_self.sizes() != at::IntArrayRef(shape)) grad_self = grad_self.expand(shape).contiguous();
  if (grad_weight.sizes() != at::IntArrayRef(shape)) grad_weight = grad_weight.expand(shape).contiguous();
  return std::make_tuple(std::move(grad_self), std::move(grad_weight));
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _prelu_kernel, "_prelu_kernel", launches(), native_prelu_kernel);
  HAL_NATIVE(m, _prelu_kernel_backward, "_prelu_kernel_backward", launches(), native_prelu_kernel_backward);
}

}  // namespace
}  // namespace torch_hal::native
