// glu and its backward from sigmoid, mul and cat over the two halves of the input. ATen gives both CPU kernels
// of their own, so without these they took the CPU fallback (nn.GLU). Half and bfloat16 are computed in float
// and rounded once, as the CPU kernels do; the other dtypes the CPU kernels refuse keep ATen's route (its errors).
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/sigmoid.h>
#include <torch/library.h>

#include <optional>
#include <utility>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

bool gluable(at::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16;
}
// The dtype the arithmetic runs in: float for the 16-bit types.
at::ScalarType compute_type(at::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

struct Halves {
  at::Tensor a, b;  // in compute_type
  int64_t dim;
};
Halves halves_of(const at::Tensor& self, int64_t dim) {
  TORCH_CHECK(self.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.size(wrapped);
  TORCH_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", wrapped, " is size ", n);
  const at::Tensor x = self.to(compute_type(self.scalar_type()));
  return {x.narrow(wrapped, 0, n / 2), x.narrow(wrapped, n / 2, n / 2), wrapped};
}

// glu(x) = a * sigmoid(b)
std::optional<at::Tensor> native_glu(const at::Tensor& self, int64_t dim) {
  if (!gluable(self.scalar_type())) return std::nullopt;
  const Halves h = halves_of(self, dim);
  return h.a.mul(at::sigmoid(h.b)).to(self.scalar_type());
}
bool native_glu_out(const at::Tensor& self, int64_t dim, at::Tensor& out) {
  return write_out(native_glu(self, dim), out);
}

// d/da = g * s, d/db = (1 - s) * s * a * g, with s = sigmoid(b); the two halves side by side as in self. The CPU
// kernel rounds s to the 16-bit types before the rest, in float (found by experiment: otherwise half differs by
// an ulp in a fifth of the elements).
std::optional<at::Tensor> native_glu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  if (!gluable(self.scalar_type()) || grad_output.scalar_type() != self.scalar_type()) return std::nullopt;
  const Halves h = halves_of(self, dim);
  const at::ScalarType compute = compute_type(self.scalar_type());
  const at::Tensor s = at::sigmoid(h.b).to(self.scalar_type()).to(compute);
  const at::Tensor grad = grad_output.to(compute);
  const at::Tensor grad_a = grad.mul(s);
  const at::Tensor grad_b = s.neg().add_(1).mul_(s).mul_(h.a).mul_(grad);
  return at::cat({grad_a, grad_b}, h.dim).to(self.scalar_type());
}
bool native_glu_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim,
                                    at::Tensor& grad_input) {
  return write_out(native_glu_backward(grad_output, self, dim), grad_input);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, glu, "glu", launches(), native_glu);
  HAL_NATIVE(m, glu_out, "glu.out", launches(), native_glu_out);
  HAL_NATIVE(m, glu_backward, "glu_backward", launches(), native_glu_backward);
  HAL_NATIVE(m, glu_backward_grad_input, "glu_backward.grad_input", launches(), native_glu_backward_grad_input);
}

}  // namespace
}  // namespace torch_hal::native
