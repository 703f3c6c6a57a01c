// nll_loss_forward / nll_loss_backward over the adapter's NLL_LOSS kernels (the functional nll_loss and
// cross_entropy are composites that reach them). Input checks and messages follow ATen's. A target outside
// [0, C) raises ATen's IndexError before the kernel runs: the kernels cannot raise (they give a NaN loss and
// a zero gradient row, kernels/nll_rules.cuh), and a silent NaN is the worse answer.
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/core/SymInt.h>
#include <torch/library.h>

#include <cmath>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

constexpr int64_t kReductionNone = 0;

// ATen's shape checks for nll_loss; false when the case is one the kernels do not take (ATen's kernel
// then runs and decides).
bool check_inputs(const at::Tensor& self, const at::Tensor& target, const at::Tensor& weight) {
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "input tensor should be 1D or 2D");
  TORCH_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  const bool no_batch_dim = self.dim() == 1 && target.dim() == 0;
  TORCH_CHECK(no_batch_dim || (self.size(0) == target.size(0)), "size mismatch (got input: ", self.sizes(),
              ", target: ", target.sizes(), ")");
  const int64_t n_classes = self.size(-1);
  TORCH_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == n_classes),
              "weight tensor should be defined either for all ", n_classes,
              " classes or no classes but got weight tensor of shape: ", weight.sizes());
  if (self.dim() == 1 && target.dim() != 0) return false;
  if (!at::isFloatingType(self.scalar_type())) return false;
  if (target.scalar_type() != at::kLong && target.scalar_type() != at::kByte) return false;
  return !weight.defined() || weight.scalar_type() == self.scalar_type();
}

constexpr int64_t kReductionSum = 2;

// ATen's "Target 5 is out of bounds." for a target outside [0, C) that is not ignore_index. The loss kernel itself
// finds such targets: over zero log-probabilities its terms are 0 except NaN for exactly those
// (kernels/nll_rules.cuh), so their sum, read back, says whether one exists. It runs in float32, which every adapter
// with NLL_LOSS serves for any target dtype. One synchronization per forward is the price of an error instead of a
// NaN (torch.cuda's device-side assert leaves the process's GPU unusable).
void check_targets(const at::Tensor& self, const at::Tensor& target, int64_t ignore_index) {
  if (target.numel() == 0) return;
  const at::Tensor zeros = at::zeros({1}, self.options().dtype(at::kFloat)).expand(self.sizes());
  at::Tensor terms = at::empty({}, zeros.options());
  at::Tensor weight = at::empty({}, zeros.options());
  KernelArgs args;
  args.input(zeros).input(target).absent_input().output(terms).output(weight).scalar(kReductionSum).scalar(ignore_index);
  if (!launch(self.device().index(), HAL_OP_NLL_LOSS, args) || !std::isnan(terms.item<float>())) return;
  const at::Tensor host = target.cpu().view(-1);  // the error's path: find the first such target
  const int64_t n_classes = self.size(-1);
  for (int64_t i = 0; i < host.numel(); ++i) {
    const int64_t t = host[i].item<int64_t>();
    TORCH_CHECK_INDEX(t == ignore_index || (t >= 0 && t < n_classes), "Target ", t, " is out of bounds.");
  }
}

KernelArgs& add_optional(KernelArgs& args, const at::Tensor& t) { return t.defined() ? args.input(t) : args.absent_input(); }

std::optional<std::tuple<at::Tensor, at::Tensor>> nll_loss_forward(const at::Tensor& self, const at::Tensor& target,
                                                                   const std::optional<at::Tensor>& weight_opt,
                                                                   int64_t reduction, c10::SymInt ignore_index) {
  const at::Tensor weight = weight_opt.has_value() ? *weight_opt : at::Tensor();
  if (!check_inputs(self, target, weight)) return std::nullopt;
  const int64_t ignore = ignore_index.guard_int(__FILE__, __LINE__);
  check_targets(self, target, ignore);
  at::Tensor output = reduction == kReductionNone && self.dim() == 2 ? at::empty({self.size(0)}, self.options())
                                                                     : at::empty({}, self.options());
  at::Tensor total_weight = at::empty({}, self.options());
  KernelArgs args;
  args.input(self).input(target);
  add_optional(args, weight);
  args.output(output).output(total_weight).scalar(reduction).scalar(ignore);
  if (!launch(self.device().index(), HAL_OP_NLL_LOSS, args)) return std::nullopt;
  return std::make_tuple(std::move(output), std::move(total_weight));
}

std::optional<at::Tensor> nll_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                            const at::Tensor& target, const std::optional<at::Tensor>& weight_opt,
                                            int64_t reduction, c10::SymInt ignore_index,
                                            const at::Tensor& total_weight) {
  const at::Tensor weight = weight_opt.has_value() ? *weight_opt : at::Tensor();
  if (!check_inputs(self, target, weight)) return std::nullopt;
  TORCH_CHECK(total_weight.numel() == 1, "expected total_weight to be a single element tensor, got: ",
              total_weight.sizes(), " (", total_weight.numel(), " elements)");
  if (reduction == kReductionNone && self.dim() == 2) {
    TORCH_CHECK(grad_output.dim() == 1 && grad_output.size(0) == self.size(0),
                "Expected a tensor of dimension 1 and tensor.size[0] == ", self.size(0), " but got: dimension ",
                grad_output.dim(), " and tensor.size[0] == ", grad_output.dim() > 0 ? grad_output.size(0) : 0);
  } else {
    TORCH_CHECK(grad_output.dim() <= 1 && grad_output.numel() == 1,
                "Expected a single element grad_output tensor, but got: ", grad_output.sizes());
  }
  if (grad_output.scalar_type() != self.scalar_type()) return std::nullopt;
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  if (grad_input.numel() == 0) return grad_input;
  KernelArgs args;
  args.input(grad_output).input(self).input(target);
  add_optional(args, weight);
  args.input(total_weight).output(grad_input).scalar(reduction).scalar(ignore_index.guard_int(__FILE__, __LINE__));
  if (!launch(self.device().index(), HAL_OP_NLL_LOSS_BACKWARD, args)) return std::nullopt;
  return grad_input;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, nll_loss_forward, "nll_loss_forward", launches(HAL_OP_NLL_LOSS), nll_loss_forward);
  HAL_NATIVE(m, nll_loss_backward, "nll_loss_backward", launches(HAL_OP_NLL_LOSS_BACKWARD), nll_loss_backward);
}

}  // namespace
}  // namespace torch_hal::native
