// nll_loss2d_forward / nll_loss2d_backward (nn.functional.nll_loss and cross_entropy on (N, C, H, W) inputs)
// over the native nll_loss: the class dim moved last and the rest flattened, (N H W, C) against (N H W)
// targets, so ignore_index, weight and the reductions are nll_loss's own. ATen gives the 2-d op a CPU kernel
// of its own, so without these it took the CPU fallback. The shape checks and their messages are the CPU's.
#include <ATen/core/Reduction.h>
#include <ATen/ops/nll_loss_backward.h>
#include <ATen/ops/nll_loss_forward.h>
#include <torch/library.h>

#include <optional>
#include <tuple>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

void check_inputs(const at::Tensor& input, const at::Tensor& target, const std::optional<at::Tensor>& weight) {
  TORCH_CHECK(target.dim() == 3,
              "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", target.dim());
  TORCH_CHECK(input.dim() == 4,
              "only batches of spatial inputs supported (4D tensors), but got input of dimension: ", input.dim());
  TORCH_CHECK(!weight.has_value() || !weight->defined() || weight->numel() == input.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(input.size(0) == target.size(0) && input.size(2) == target.size(1) && input.size(3) == target.size(2),
              "size mismatch (got input: ", input.sizes(), " , target: ", target.sizes());
}

// (N, C, H, W) -> (N H W, C): one copy of the permuted input (none for a channels-last input).
at::Tensor classes_last(const at::Tensor& input) { return input.permute({0, 2, 3, 1}).reshape({-1, input.size(1)}); }

std::optional<std::tuple<at::Tensor, at::Tensor>> native_nll_loss2d_forward(const at::Tensor& self,
                                                                            const at::Tensor& target,
                                                                            const std::optional<at::Tensor>& weight,
                                                                            int64_t reduction,
                                                                            c10::SymInt ignore_index) {
  check_inputs(self, target, weight);
  auto [output, total_weight] =
      at::nll_loss_forward_symint(classes_last(self), target.reshape({-1}), weight, reduction, ignore_index);
  if (reduction == at::Reduction::None) output = output.view(target.sizes());
  return std::make_tuple(output, total_weight);
}

std::optional<at::Tensor> native_nll_loss2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                     const at::Tensor& target,
                                                     const std::optional<at::Tensor>& weight, int64_t reduction,
                                                     c10::SymInt ignore_index, const at::Tensor& total_weight) {
  check_inputs(self, target, weight);
  at::Tensor grad = grad_output;
  if (reduction == at::Reduction::None) {
    TORCH_CHECK(grad_output.dim() == 3 && grad_output.sizes() == target.sizes(),
                "grad_output must have same dimension as target: ", target.sizes(), " but got: ",
                grad_output.sizes());
    grad = grad_output.reshape({-1});
  }
  const at::Tensor flat = at::nll_loss_backward_symint(grad, classes_last(self), target.reshape({-1}), weight,
                                                       reduction, ignore_index, total_weight);
  // (N H W, C) back to (N, C, H, W), contiguous as the CPU's gradient is.
  return flat.view({self.size(0), self.size(2), self.size(3), self.size(1)}).permute({0, 3, 1, 2}).contiguous();
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, nll_loss2d_forward, "nll_loss2d_forward", launches(), native_nll_loss2d_forward);
  HAL_NATIVE(m, nll_loss2d_backward, "nll_loss2d_backward", launches(), native_nll_loss2d_backward);
}

}  // namespace
}  // namespace torch_hal::native
