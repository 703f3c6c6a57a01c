// embedding_dense_backward over the adapter's EMBEDDING_BACKWARD kernel. (The embedding forward is ATen's
// composite over index_select, which indexing_ops.cpp runs natively.) scale_grad_by_freq needs index
// counts and takes ATen's path.
//
// embedding_renorm_ (F.embedding's max_norm) composed: the rows the indices name are read with index_select,
// those whose norm exceeds max_norm scaled by max_norm / (norm + 1e-7) as the CPU kernel does, and all written
// back with index_copy_. An index named twice reads the same row twice and writes the same values twice, so no
// unique (a sort) is needed for the CPU kernel's once-per-row semantics.
#include <ATen/ops/empty.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
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

bool embedding_renorm(at::Tensor& self, const at::Tensor& indices, double max_norm, double norm_type) {
  if (!at::isFloatingType(self.scalar_type())) return false;
  TORCH_CHECK(self.dim() == 2, "embedding_renorm_: expected a 2-D weight, got ", self.dim(), "-D");
  TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt,
              "embedding_renorm_: expected indices of type Long or Int, got ", indices.scalar_type());
  const at::Tensor index = indices.reshape({-1}).to(at::kLong);
  if (index.numel() == 0) return true;
  const at::Tensor rows = self.index_select(0, index);
  // The norm in self's dtype (as the CPU kernel rounds it), the scale and the product in float for 16-bit types,
  // as the CPU's multiplication by a scalar computes them.
  const at::ScalarType compute = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const at::Tensor norm = at::linalg_vector_norm(rows, norm_type, 1, /*keepdim=*/true).to(compute);
  const at::Tensor scale = at::where(norm.gt(max_norm), at::scalar_tensor(max_norm, norm.options()).div(norm.add(1e-7)),
                                     at::scalar_tensor(1, norm.options()));
  self.index_copy_(0, index, rows.to(compute).mul(scale).to(self.scalar_type()));
  return true;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, embedding_renorm_, "embedding_renorm_", launches(), embedding_renorm);
  HAL_NATIVE(m, embedding_dense_backward, "embedding_dense_backward", launches(HAL_OP_EMBEDDING_BACKWARD),
             embedding_dense_backward);
}

}  // namespace
}  // namespace torch_hal::native
