// torch.nn.utils.weight_norm's fused op and its backward (wav2vec2's and HuBERT's positional convolution, WaveNet
// vocoders) from native reductions and elementwise math: w = g * v / ||v||, the norm over every dimension but
// `dim` (0 or the last, as ATen's kernels require), computed in float32 for float16/bfloat16 weights as ATen does.
#include <ATen/ops/empty.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/sum.h>
#include <torch/library.h>

#include <tuple>
#include <vector>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

std::vector<int64_t> dims_but(const at::Tensor& v, int64_t dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < v.dim(); ++d) {
    if (d != dim) dims.push_back(d);
  }
  return dims;
}

at::ScalarType accumulate_type(const at::Tensor& v) {
  return v.scalar_type() == at::kHalf || v.scalar_type() == at::kBFloat16 ? at::kFloat : v.scalar_type();
}

// ||v|| over every dimension but dim, kept as size 1; a 1-D v has one element per slice.
at::Tensor slice_norms(const at::Tensor& v, int64_t dim) {
  const std::vector<int64_t> dims = dims_but(v, dim);
  if (dims.empty()) return v.abs().to(accumulate_type(v));
  return at::linalg_vector_norm(v, 2, dims, /*keepdim=*/true, accumulate_type(v));
}

bool supported(const at::Tensor& v, const at::Tensor& g, int64_t dim) {
  return at::isFloatingType(v.scalar_type()) && v.scalar_type() == g.scalar_type() && v.dim() > 0 &&
         (dim == 0 || dim == v.dim() - 1);
}

std::optional<std::tuple<at::Tensor, at::Tensor>> weight_norm(const at::Tensor& v, const at::Tensor& g, int64_t dim) {
  if (!supported(v, g, dim)) return std::nullopt;
  at::Tensor norms = slice_norms(v, dim);
  at::Tensor w = v.mul(g.div(norms)).to(v.scalar_type());
  return std::make_tuple(std::move(w), std::move(norms));
}

// grad_g = <grad_w, v> / ||v|| per slice; grad_v = (g / ||v||) (grad_w - v grad_g / ||v||).
std::optional<std::tuple<at::Tensor, at::Tensor>> weight_norm_backward(const at::Tensor& grad_w, const at::Tensor& v,
                                                                       const at::Tensor& g, const at::Tensor& norms,
                                                                       int64_t dim) {
  if (!supported(v, g, dim)) return std::nullopt;
  const std::vector<int64_t> dims = dims_but(v, dim);
  const at::ScalarType acc = accumulate_type(v);
  const at::Tensor products = grad_w.to(acc).mul(v.to(acc));
  const at::Tensor dot = dims.empty() ? products : at::sum(products, dims, /*keepdim=*/true);
  at::Tensor grad_g = dot.div(norms);
  at::Tensor grad_v = g.to(acc).div(norms).mul(grad_w.to(acc).sub(v.to(acc).mul(grad_g.div(norms))));
  return std::make_tuple(grad_v.to(v.scalar_type()), grad_g.to(g.scalar_type()));
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _weight_norm_interface, "_weight_norm_interface", launches(), weight_norm);
  HAL_NATIVE(m, _weight_norm_interface_backward, "_weight_norm_interface_backward", launches(),
             weight_norm_backward);
}

}  // namespace
}  // namespace torch_hal::native
