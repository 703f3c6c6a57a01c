// The random distributions made from uniform_ and normal_ (random_ops.cpp's counter-based kernels) and the
// library's elementwise math, as torch.cuda draws them by transforming uniform numbers: exponential_ (which
// torch.multinomial and sampling in generate() draw), cauchy_, log_normal_ and geometric_. Draws for float16/bfloat16 are made and transformed in float32 and then
// rounded once, so a uniform number rounding to 1 cannot turn into an infinity.
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <cmath>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

// Where to draw: self itself when it is float32 or float64, else a float32 tensor of its shape; finish copies
// a separate draw back into self.
at::Tensor draw_buffer(const at::Tensor& self) {
  if (self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble) return self;
  return at::empty(self.sizes(), self.options().dtype(at::kFloat));
}
bool finish(at::Tensor& self, const at::Tensor& drawn) {
  if (!drawn.is_same(self)) self.copy_(drawn);
  return true;
}

bool exponential_(at::Tensor& self, double lambd, std::optional<at::Generator> generator) {
  TORCH_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  if (!at::isFloatingType(self.scalar_type())) return false;
  at::Tensor u = draw_buffer(self).uniform_(0.0, 1.0, generator);
  return finish(self, u.neg_().log1p_().mul_(-1.0 / lambd));  // -log(1 - u) / lambda, u in [0, 1)
}

bool cauchy_(at::Tensor& self, double median, double sigma, std::optional<at::Generator> generator) {
  TORCH_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  if (!at::isFloatingType(self.scalar_type())) return false;
  at::Tensor u = draw_buffer(self).uniform_(0.0, 1.0, generator);
  return finish(self, u.sub_(0.5).mul_(M_PI).tan_().mul_(sigma).add_(median));
}

bool log_normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  TORCH_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  if (!at::isFloatingType(self.scalar_type())) return false;
  at::Tensor z = draw_buffer(self).normal_(mean, std, generator);
  return finish(self, z.exp_());
}

// The number of Bernoulli(p) trials up to the first success: ceil(log(1 - u) / log(1 - p)), in float and then
// rounded into self's dtype (integers included).
bool geometric_(at::Tensor& self, double p, std::optional<at::Generator> generator) {
  TORCH_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  if (self.scalar_type() == at::kBool || self.is_complex()) return false;
  at::Tensor u = at::isFloatingType(self.scalar_type()) ? draw_buffer(self)
                                                        : at::empty(self.sizes(), self.options().dtype(at::kFloat));
  u.uniform_(0.0, 1.0, generator);
  return finish(self, u.neg_().log1p_().div_(std::log1p(-p)).ceil_().clamp_min_(1.0));
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, exponential_, "exponential_", launches(), exponential_);
  HAL_NATIVE(m, cauchy_, "cauchy_", launches(), cauchy_);
  HAL_NATIVE(m, log_normal_, "log_normal_", launches(), log_normal_);
  HAL_NATIVE(m, geometric_, "geometric_", launches(), geometric_);
}

}  // namespace
}  // namespace torch_hal::native
