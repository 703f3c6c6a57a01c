// unfold_backward (the gradient of Tensor.unfold, and istft's overlap-add) as one accumulating INDEX_PUT: element
// j of window i came from position i * step + j along dim, so the gradient is the windows' elements added at
// those positions of a zero tensor (overlapping windows add up, as ATen's kernel does). The windows' two dims are
// merged into one list of rows first (a copy where their layout needs it).
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/indexing_launch.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

std::optional<at::Tensor> native_unfold_backward(const at::Tensor& grad_in, c10::SymIntArrayRef input_sizes,
                                                 int64_t dim, int64_t size, int64_t step) {
  const auto sizes = C10_AS_INTARRAYREF_SLOW(input_sizes);
  if (sizes.empty() || grad_in.dim() != static_cast<int64_t>(sizes.size()) + 1) return std::nullopt;  // 0-dim input
  const int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  at::Tensor grad_input = at::zeros(sizes, grad_in.options());
  if (grad_in.numel() == 0) return grad_input;
  const int64_t windows = grad_in.size(d);
  const at::TensorOptions longs = grad_in.options().dtype(at::kLong);
  const at::Tensor positions =
      at::arange(windows, longs).mul_(step).unsqueeze(1).add(at::arange(size, longs)).reshape({-1});
  auto merged = grad_in.sizes().vec();
  merged.pop_back();
  merged[d] = windows * size;
  const at::Tensor rows = grad_in.movedim(-1, d + 1).reshape(merged);
  if (!put_rows(grad_input.movedim(d, 0), positions, rows.movedim(d, 0), /*accumulate=*/true)) return std::nullopt;
  return grad_input;
}

bool native_unfold_backward_out(const at::Tensor& grad_in, c10::SymIntArrayRef input_sizes, int64_t dim,
                                int64_t size, int64_t step, at::Tensor& out) {
  return write_out(native_unfold_backward(grad_in, input_sizes, dim, size, step), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, unfold_backward, "unfold_backward", launches(HAL_OP_INDEX_PUT), native_unfold_backward);
  HAL_NATIVE(m, unfold_backward_out, "unfold_backward.out", launches(HAL_OP_INDEX_PUT), native_unfold_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
