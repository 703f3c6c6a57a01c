// unfold_backward (the gradient of Tensor.unfold, and istft's overlap-add): element j of window i came from
// position i * step + j along dim, so the gradient is the windows' elements added at those positions of a zero
// tensor (overlapping windows add up, as ATen's kernel does).
//
// Without atomics: split j as q * step + r (0 <= r < step). For one q, the elements r of all windows land on
// positions (i + q) * step + r, which for r < step never collide, and which form a strided view of the gradient
// (Tensor.unfold of it with window min(step, size - q * step) and the same step). So the gradient is one slice
// addition per q, ceil(size / step) of them, deterministic and runnable on every device. Where windows overlap
// much (small steps) and the device has the accumulating INDEX_PUT, one such launch replaces the many additions.
// A 0-dim input is the 1-element case of a 1-D one.
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <algorithm>

#include "dispatch/native_first.h"
#include "ops/indexing_launch.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// More additions than this try the one accumulating launch first.
constexpr int64_t kMaxSliceAdditions = 8;

// grad_input (zeros, [..., n, ...] at d) += grad_in ([..., windows, ..., size]) by one accumulating INDEX_PUT.
bool put_windows(at::Tensor& grad_input, const at::Tensor& grad_in, int64_t d, int64_t size, int64_t step) {
  const int64_t windows = grad_in.size(d);
  const at::TensorOptions longs = grad_in.options().dtype(at::kLong);
  const at::Tensor positions =
      at::arange(windows, longs).mul_(step).unsqueeze(1).add(at::arange(size, longs)).reshape({-1});
  auto merged = grad_in.sizes().vec();
  merged.pop_back();
  merged[d] = windows * size;
  const at::Tensor rows = grad_in.movedim(-1, d + 1).reshape(merged);
  return put_rows(grad_input.movedim(d, 0), positions, rows.movedim(d, 0), /*accumulate=*/true);
}

// The same by one slice addition per q (see above).
void add_windows(at::Tensor& grad_input, const at::Tensor& grad_in, int64_t d, int64_t size, int64_t step) {
  const int64_t windows = grad_in.size(d);
  for (int64_t first = 0; first < size; first += step) {  // first = q * step
    const int64_t width = std::min(step, size - first);
    at::Tensor target = grad_input.narrow(d, first, (windows - 1) * step + width).unfold(d, width, step);
    target.add_(grad_in.narrow(-1, first, width));
  }
}

std::optional<at::Tensor> native_unfold_backward(const at::Tensor& grad_in, c10::SymIntArrayRef input_sizes,
                                                 int64_t dim, int64_t size, int64_t step) {
  const auto sizes = C10_AS_INTARRAYREF_SLOW(input_sizes);
  if (grad_in.dim() != static_cast<int64_t>(sizes.size()) + 1 || step <= 0 || size < 0) return std::nullopt;
  if (sizes.empty()) {  // a 0-dim input: a 1-D one of one element, whose one window is grad_in ([size])
    const int64_t one[] = {1};
    std::optional<at::Tensor> g =
        native_unfold_backward(grad_in.unsqueeze(0), c10::fromIntArrayRefSlow(one), 0, size, step);
    return g ? std::optional<at::Tensor>(g->squeeze(0)) : std::nullopt;
  }
  const int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  at::Tensor grad_input = at::zeros(sizes, grad_in.options());
  if (grad_in.numel() == 0 || size == 0) return grad_input;
  const int64_t additions = (size + step - 1) / step;
  if (additions > kMaxSliceAdditions && put_windows(grad_input, grad_in, d, size, step)) return grad_input;
  add_windows(grad_input, grad_in, d, size, step);
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
