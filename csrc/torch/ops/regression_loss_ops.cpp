// The regression losses and their backward ops from native elementwise math and reductions: mse_loss (what
// nn.MSELoss and F.mse_loss call: a regression head or a diffusion model's loss), smooth_l1_loss and huber_loss.
// Each element is computed as ATen's CPU kernel computes it, operation for operation, in the dtype where that
// kernel rounds each step to it (mse_loss) and in float32 rounded once where it computes float16/bfloat16 in
// float32 (smooth_l1_loss, huber_loss), so results agree with the CPU's to the rounding of the reduction; integer
// and complex inputs keep ATen's route (its errors).
#include <ATen/core/Reduction.h>
#include <ATen/ops/where.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

bool floating(const at::Tensor& a, const at::Tensor& b) {
  return at::isFloatingType(a.scalar_type()) && at::isFloatingType(b.scalar_type());
}

// The inputs' common dtype, and a tensor in the type the elements are computed in (float32 for float16/bfloat16).
at::ScalarType common_type(const at::Tensor& a, const at::Tensor& b) {
  return at::promote_types(a.scalar_type(), b.scalar_type());
}
at::Tensor in_opmath(const at::Tensor& t, at::ScalarType type) {
  const at::ScalarType compute = type == at::kHalf || type == at::kBFloat16 ? at::kFloat : type;
  return t.scalar_type() == compute ? t : t.to(compute);
}

at::Tensor reduced(const at::Tensor& loss, int64_t reduction) {
  if (reduction == at::Reduction::Mean) return loss.mean();
  if (reduction == at::Reduction::Sum) return loss.sum();
  return loss;
}

// The backward's scale: 1 / numel for a mean, else 1 (times 2 for the squared error).
double gradient_norm(const at::Tensor& self, int64_t reduction, double factor) {
  return reduction == at::Reduction::Mean ? factor / static_cast<double>(self.numel()) : factor;
}

// ---- mse_loss: (x - y)^2 --------------------------------------------------------------------------------------

std::optional<at::Tensor> native_mse_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction) {
  if (!floating(self, target)) return std::nullopt;
  const at::Tensor difference = self.sub(target);  // rounded to the dtype first, as the CPU and CUDA kernels do
  return reduced(difference.mul(difference), reduction);
}
bool native_mse_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction, at::Tensor& out) {
  return write_out(native_mse_loss(self, target, reduction), out);
}
// norm (x - y) grad, norm = 2 (/ numel for a mean), in the CPU kernel's order.
std::optional<at::Tensor> native_mse_loss_backward(const at::Tensor& grad, const at::Tensor& self,
                                                   const at::Tensor& target, int64_t reduction) {
  if (!floating(self, target)) return std::nullopt;
  return self.sub(target).mul_(gradient_norm(self, reduction, 2.0)).mul(grad);  // each step in the dtype, as theirs
}
bool native_mse_loss_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                  int64_t reduction, at::Tensor& grad_input) {
  return write_out(native_mse_loss_backward(grad, self, target, reduction), grad_input);
}

// ---- smooth_l1_loss: 0.5 z^2 / beta below beta, z - 0.5 beta above (z = |x - y|); beta 0 is the L1 loss ---------

std::optional<at::Tensor> native_smooth_l1_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                                                double beta) {
  TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (!floating(self, target)) return std::nullopt;
  const at::ScalarType type = common_type(self, target);
  const at::Tensor z = in_opmath(self, type).sub(in_opmath(target, type)).abs_();
  if (beta == 0) return reduced(z.to(type), reduction);
  const at::Tensor quadratic = z.mul(0.5).mul_(z).div_(beta);
  return reduced(at::where(z.lt(beta), quadratic, z.sub(0.5 * beta)).to(type), reduction);
}
bool native_smooth_l1_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double beta,
                               at::Tensor& out) {
  return write_out(native_smooth_l1_loss(self, target, reduction, beta), out);
}

// -norm grad at or below -limit, norm grad at or above limit, norm x grad / divisor between (x = self - target):
// smooth L1's (limit beta, divisor beta) and Huber's (limit delta, the outer slopes times delta, divisor 1).
at::Tensor piecewise_linear_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                     double norm, double limit, double outer_scale, double divisor) {
  const at::ScalarType type = common_type(self, target);
  const at::Tensor x = in_opmath(self, type).sub(in_opmath(target, type));
  const at::Tensor g = in_opmath(grad, type);
  const at::Tensor outer = g.mul(norm);
  const at::Tensor high = outer_scale == 1.0 ? outer : outer.mul(outer_scale);
  at::Tensor inner = x.mul(norm).mul(g);
  if (divisor != 1.0) inner.div_(divisor);
  return at::where(x.le(-limit), high.neg(), at::where(x.ge(limit), high, inner)).to(type);
}

bool native_smooth_l1_loss_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                        int64_t reduction, double beta, at::Tensor& grad_input) {
  if (!floating(self, target)) return false;
  if (beta == 0) {  // the L1 loss's gradient: x <= 0 takes the negative slope, as the CPU kernel's first branch
    return write_out(piecewise_linear_backward(grad, self, target, gradient_norm(self, reduction, 1.0), 0.0, 1.0, 1.0),
                grad_input);
  }
  return write_out(piecewise_linear_backward(grad, self, target, gradient_norm(self, reduction, 1.0), beta, 1.0, beta),
              grad_input);
}

// ---- huber_loss: 0.5 z^2 below delta, delta (z - 0.5 delta) above -------------------------------------------

std::optional<at::Tensor> native_huber_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                                            double delta) {
  TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  if (!floating(self, target)) return std::nullopt;
  const at::ScalarType type = common_type(self, target);
  const at::Tensor z = in_opmath(self, type).sub(in_opmath(target, type)).abs_();
  const at::Tensor quadratic = z.mul(0.5).mul_(z);
  return reduced(at::where(z.lt(delta), quadratic, z.sub(0.5 * delta).mul_(delta)).to(type), reduction);
}
bool native_huber_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double delta,
                           at::Tensor& out) {
  return write_out(native_huber_loss(self, target, reduction, delta), out);
}
bool native_huber_loss_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                    int64_t reduction, double delta, at::Tensor& grad_input) {
  if (!floating(self, target)) return false;
  return write_out(piecewise_linear_backward(grad, self, target, gradient_norm(self, reduction, 1.0), delta, delta, 1.0),
              grad_input);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, mse_loss, "mse_loss", launches(), native_mse_loss);
  HAL_NATIVE(m, mse_loss_out, "mse_loss.out", launches(), native_mse_loss_out);
  HAL_NATIVE(m, mse_loss_backward, "mse_loss_backward", launches(), native_mse_loss_backward);
  HAL_NATIVE(m, mse_loss_backward_grad_input, "mse_loss_backward.grad_input", launches(),
             native_mse_loss_backward_out);
  HAL_NATIVE(m, smooth_l1_loss, "smooth_l1_loss", launches(), native_smooth_l1_loss);
  HAL_NATIVE(m, smooth_l1_loss_out, "smooth_l1_loss.out", launches(), native_smooth_l1_loss_out);
  HAL_NATIVE(m, smooth_l1_loss_backward_grad_input, "smooth_l1_loss_backward.grad_input", launches(),
             native_smooth_l1_loss_backward_out);
  HAL_NATIVE(m, huber_loss, "huber_loss", launches(), native_huber_loss);
  HAL_NATIVE(m, huber_loss_out, "huber_loss.out", launches(), native_huber_loss_out);
  HAL_NATIVE(m, huber_loss_backward_out, "huber_loss_backward.out", launches(), native_huber_loss_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
