// embedding_dense_backward over the adapter's EMBEDDING_BACKWARD kernel. (The embedding forward is ATen's
// composite over index_select, which indexing_ops.cpp runs natively.) scale_grad_by_freq needs index
// counts and takes ATen's path.
#include <ATen/ops/empty.h>
#include <c10/core/SymInt.h>
#include <torch/library.h>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

std::optional<at::Tensor> embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices,
                                                   c10::SymInt num_weights, c10::SymInt padding_idx,
                                                   bool scale_grad_by_freq) {
  if (scale_grad_by_freq || grad_output.dim() == 0) return std::nullopt;
  if (indices.scalar_type() != at::kLong && indices.scalar_type() != at::kInt) return std::nullopt;
  if (!at::isFloatingType(grad_output.scalar_type())) return std::nullopt;
  const int64_t rows = num_weights.guard_int(__FILE__, __LINE__);
  const int64_t count = indices.numel();
  const int64_t width = grad_output.size(-1);
  TORCH_CHECK(grad_output.numel() == count * width, "embedding_backward: grad_output of shape ", grad_output.sizes(),
              " does not match indices of shape ", indices.sizes());
  const at::Tensor grad = grad_output.reshape({count, width});
  const at::Tensor index = indices.reshape({count});
  at::Tensor grad_weight = at::empty({rows, width}, grad_output.options());
  KernelArgs args;
  args.input(grad).input(index).output(grad_weight).scalar(padding_idx.guard_int(__FILE__, __LINE__));
  if (!launch(grad_output.device().index(), HAL_OP_EMBEDDING_BACKWARD, args)) return std::nullopt;
  return grad_weight;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, embedding_dense_backward, "embedding_dense_backward", launches(HAL_OP_EMBEDDING_BACKWARD),
             embedding_dense_backward);
}

}  // namespace
}  // namespace torch_hal::native
