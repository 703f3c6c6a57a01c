// binary_cross_entropy and its backward (F.binary_cross_entropy, nn.BCELoss) from native elementwise ops and
// reductions, with the CPU kernel's formulas in its order of operations:
//   loss = (y - 1) * max(log1p(-x), -100) - y * max(log(x), -100), times the weight, then the reduction;
//   grad = g * (x - y) / max((1 - x) * x, 1e-12), times the weight, divided by the count for the mean.
// The inputs' range checks are one host read each, as the CPU kernel's per-element checks (torch.cuda asserts on
// the device instead). ATen gives these ops CPU kernels only, so without this they took the CPU fallback.
#include <ATen/TensorOperators.h>
#include <ATen/core/Reduction.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/log.h>
#include <ATen/ops/log1p.h>
#include <ATen/ops/stack.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// Every element in [0, 1] (a NaN fails, as in the CPU kernel): the extremes, read in one transfer.
void check_unit_interval(const at::Tensor& t, const char* name) {
  if (t.numel() == 0) return;
  const at::Tensor extremes = at::stack({t.min(), t.max()}).to(at::kCPU, at::kDouble);
  const double low = extremes[0].item<double>(), high = extremes[1].item<double>();
  TORCH_CHECK(low >= 0 && high <= 1, "all elements of ", name, " should be between 0 and 1");
}

bool computable(const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight) {
  if (!at::isFloatingType(self.scalar_type()) || target.scalar_type() != self.scalar_type()) return false;
  return !weight.has_value() || !weight->defined() || weight->scalar_type() == self.scalar_type();
}

at::Tensor weighted(at::Tensor t, const std::optional<at::Tensor>& weight) {
  if (weight.has_value() && weight->defined()) t = t * *weight;
  return t;
}

at::Tensor reduced(const at::Tensor& loss, int64_t reduction) {
  if (reduction == at::Reduction::Mean) return loss.mean();
  if (reduction == at::Reduction::Sum) return loss.sum();
  return loss;
}

std::optional<at::Tensor> native_binary_cross_entropy(const at::Tensor& self, const at::Tensor& target,
                                                      const std::optional<at::Tensor>& weight, int64_t reduction) {
  TORCH_CHECK(self.sizes().equals(target.sizes()), "Using a target size (", target.sizes(),
              ") that is different to the input size (", self.sizes(), ") is deprecated. ",
              "Please ensure they have the same size.");
  if (!computable(self, target, weight)) return std::nullopt;
  check_unit_interval(self, "input");
  check_unit_interval(target, "target");
  const at::Tensor log_x = at::log(self).clamp_min_(-100);
  const at::Tensor log_1mx = at::log1p(-self).clamp_min_(-100);
  const at::Tensor loss = (target - 1) * log_1mx - target * log_x;
  return reduced(weighted(loss, weight), reduction);
}
bool native_binary_cross_entropy_out(const at::Tensor& self, const at::Tensor& target,
                                     const std::optional<at::Tensor>& weight, int64_t reduction, at::Tensor& out) {
  return write_out(native_binary_cross_entropy(self, target, weight, reduction), out);
}

std::optional<at::Tensor> native_binary_cross_entropy_backward(const at::Tensor& grad, const at::Tensor& self,
                                                               const at::Tensor& target,
                                                               const std::optional<at::Tensor>& weight,
                                                               int64_t reduction) {
  if (!computable(self, target, weight) || grad.scalar_type() != self.scalar_type()) return std::nullopt;
  constexpr double kEpsilon = 1e-12;
  at::Tensor grad_input = grad * (self - target) / ((1 - self) * self).clamp_min_(kEpsilon);
  grad_input = weighted(grad_input, weight);
  if (reduction == at::Reduction::Mean) grad_input = grad_input / static_cast<double>(self.numel());
  return grad_input.expand(self.sizes()).contiguous();
}
bool native_binary_cross_entropy_backward_out(const at::Tensor& grad, const at::Tensor& self,
                                              const at::Tensor& target, const std::optional<at::Tensor>& weight,
                                              int64_t reduction, at::Tensor& grad_input) {
  return write_out(native_binary_cross_entropy_backward(grad, self, target, weight, reduction), grad_input);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, binary_cross_entropy, "binary_cross_entropy", launches(), native_binary_cross_entropy);
  HAL_NATIVE(m, binary_cross_entropy_out, "binary_cross_entropy.out", launches(), native_binary_cross_entropy_out);
  HAL_NATIVE(m, binary_cross_entropy_backward, "binary_cross_entropy_backward", launches(),
             native_binary_cross_entropy_backward);
  HAL_NATIVE(m, binary_cross_entropy_backward_grad_input, "binary_cross_entropy_backward.grad_input", launches(),
             native_binary_cross_entropy_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
