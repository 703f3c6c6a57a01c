// Random ops that ATen builds from simpler draws on CPU and CUDA alike, composed here the same way from hal's
// native uniform_, normal_ and exponential_ and its math, so they stop taking the CPU fallback:
//   - torch.normal with tensor means and/or standard deviations: standard normal draws scaled and shifted;
//   - torch.multinomial: without replacement (or one sample) by the exponential race (argmax / topk of p / q,
//     q ~ Exp(1), as ATen does); with replacement by inverting the cumulative distribution (a uniform draw per
//     sample, searchsorted in the row's running sums);
//   - rrelu_with_noise (F.rrelu): in training a uniform slope per negative element, kept in `noise` for the
//     backward; in evaluation leaky_relu with the mean slope.
// ATen's argument checks and messages come first; a CPU generator is refused by the draws themselves.
#include <ATen/ExpandUtils.h>
#include <ATen/TensorOperators.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/topk.h>
#include <ATen/ops/where.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

void check_std(double std) { TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std); }
void check_std(const at::Tensor& std) {
  TORCH_CHECK(!std.is_complex(), "normal expects standard deviation to be non-complex");
  TORCH_CHECK(std.numel() == 0 || std.min().ge(0).item<bool>(), "normal expects all elements of std >= 0.0");
}
bool drawable(const at::Tensor& t) { return at::isFloatingType(t.scalar_type()); }

// mean + std * N(0, 1) of the broadcast shape, in `out` (resized).
bool normal_into(at::Tensor& out, const at::Tensor& mean, const at::Tensor& std, std::optional<at::Generator> gen) {
  at::native::resize_output(out, at::infer_size(mean.sizes(), std.sizes()));
  out.normal_(0.0, 1.0, gen).mul_(std).add_(mean);
  return true;
}

std::optional<at::Tensor> native_normal_tensor_float(const at::Tensor& mean, double std,
                                                     std::optional<at::Generator> gen) {
  check_std(std);
  if (!drawable(mean)) return std::nullopt;
  at::Tensor out = at::empty_like(mean, at::MemoryFormat::Contiguous);
  out.normal_(0.0, std, gen).add_(mean);
  return out;
}
bool native_normal_tensor_float_out(const at::Tensor& mean, double std, std::optional<at::Generator> gen,
                                    at::Tensor& out) {
  check_std(std);
  if (!drawable(mean) || !drawable(out)) return false;
  at::native::resize_output(out, mean.sizes());
  out.normal_(0.0, std, gen).add_(mean);
  return true;
}
std::optional<at::Tensor> native_normal_float_tensor(double mean, const at::Tensor& std,
                                                     std::optional<at::Generator> gen) {
  check_std(std);
  if (!drawable(std)) return std::nullopt;
  at::Tensor out = at::empty_like(std, at::MemoryFormat::Contiguous);
  out.normal_(0.0, 1.0, gen).mul_(std).add_(mean);
  return out;
}
bool native_normal_float_tensor_out(double mean, const at::Tensor& std, std::optional<at::Generator> gen,
                                    at::Tensor& out) {
  check_std(std);
  if (!drawable(std) || !drawable(out)) return false;
  at::native::resize_output(out, std.sizes());
  out.normal_(0.0, 1.0, gen).mul_(std).add_(mean);
  return true;
}
std::optional<at::Tensor> native_normal_tensor_tensor(const at::Tensor& mean, const at::Tensor& std,
                                                      std::optional<at::Generator> gen) {
  check_std(std);
  if (!drawable(mean) || !drawable(std)) return std::nullopt;
  at::Tensor out = at::empty({0}, mean.options());
  normal_into(out, mean, std, gen);
  return out;
}
bool native_normal_tensor_tensor_out(const at::Tensor& mean, const at::Tensor& std, std::optional<at::Generator> gen,
                                     at::Tensor& out) {
  check_std(std);
  if (!drawable(mean) || !drawable(std) || !drawable(out)) return false;
  return normal_into(out, mean, std, gen);
}

// torch.multinomial's checks, in ATen's words.
void check_multinomial(const at::Tensor& self, int64_t n_sample, bool replacement) {
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()),
              "multinomial only supports floating-point dtypes for input, got: ", self.scalar_type());
  TORCH_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples");
  TORCH_CHECK(replacement || n_sample <= self.size(-1),
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TORCH_CHECK(self.size(-1) <= (int64_t{1} << 24), "number of categories cannot exceed 2^24");
}
// One host read for the distribution's validity, as ATen's own check does.
void check_distribution(const at::Tensor& self) {
  const bool finite_and_positive = self.max().lt(INFINITY).logical_and(self.min().ge(0)).item<bool>();
  TORCH_CHECK(finite_and_positive, "probability tensor contains either `inf`, `nan` or element < 0");
  const at::Tensor row_sums = self.dim() == 1 ? self.sum() : self.sum(1);
  TORCH_CHECK(!row_sums.eq(0).any().item<bool>(), "invalid multinomial distribution (sum of probabilities <= 0)");
}

std::optional<at::Tensor> native_multinomial(const at::Tensor& self, c10::SymInt n_sample_sym, bool replacement,
                                             std::optional<at::Generator> gen) {
  const int64_t n_sample = n_sample_sym.expect_int();
  check_multinomial(self, n_sample, replacement);
  const bool rows = self.dim() == 2;
  if (self.numel() == 0 || (rows && self.size(0) == 0)) {
    return at::empty(rows ? std::vector<int64_t>{self.size(0), n_sample} : std::vector<int64_t>{n_sample},
                     self.options().dtype(at::kLong));
  }
  check_distribution(self);
  if (!replacement || n_sample == 1) {
    at::Tensor race = at::empty_like(self).exponential_(1.0, gen);
    race = self / race;  // the largest p / q wins; q ~ Exp(1)
    if (n_sample == 1) return at::argmax(race, -1, /*keepdim=*/true);
    return std::get<1>(at::topk(race, n_sample));
  }
  // With replacement: u * total located among the running sums (the first sum above it).
  const at::Tensor probabilities = self.scalar_type() == at::kDouble ? self : self.to(at::kFloat);
  const at::Tensor cumulative = probabilities.cumsum(-1);
  const at::Tensor total = cumulative.narrow(-1, self.size(-1) - 1, 1);
  const std::vector<int64_t> shape = rows ? std::vector<int64_t>{self.size(0), n_sample} : std::vector<int64_t>{n_sample};
  const at::Tensor u = at::empty(shape, probabilities.options()).uniform_(0.0, 1.0, gen).mul_(total);
  return at::searchsorted(cumulative, u, /*out_int32=*/false, /*right=*/true).clamp_max_(self.size(-1) - 1);
}
bool native_multinomial_out(const at::Tensor& self, c10::SymInt n_sample, bool replacement,
                            std::optional<at::Generator> gen, at::Tensor& out) {
  return write_out(native_multinomial(self, std::move(n_sample), replacement, gen), out);
}

// rrelu: x * slope for x <= 0 (slope ~ U(lower, upper) in training, (lower + upper) / 2 in evaluation).
std::optional<at::Tensor> rrelu_result(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                                       const at::Scalar& upper, bool training, std::optional<at::Generator> gen) {
  if (!at::isFloatingType(self.scalar_type())) return std::nullopt;
  if (!training) return at::leaky_relu(self, (lower.toDouble() + upper.toDouble()) / 2);
  TORCH_CHECK(noise.sizes().equals(self.sizes()), "rrelu_with_noise: noise must have the input's shape");
  const at::Tensor slopes = at::empty_like(self).uniform_(lower.toDouble(), upper.toDouble(), gen);
  noise.copy_(at::where(self.le(0), slopes, at::ones_like(slopes)));
  return self * noise;
}
std::optional<at::Tensor> native_rrelu_with_noise(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                                                  const at::Scalar& upper, bool training,
                                                  std::optional<at::Generator> gen) {
  return rrelu_result(self, noise, lower, upper, training, gen);
}
bool native_rrelu_with_noise_out(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                                 const at::Scalar& upper, bool training, std::optional<at::Generator> gen,
                                 at::Tensor& out) {
  return write_out(rrelu_result(self, noise, lower, upper, training, gen), out);
}
bool native_rrelu_with_noise_(at::Tensor& self, at::Tensor& noise, const at::Scalar& lower, const at::Scalar& upper,
                              bool training, std::optional<at::Generator> gen) {
  const auto result = rrelu_result(self, noise, lower, upper, training, gen);
  if (!result) return false;
  self.copy_(*result);
  return true;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, normal_Tensor_float, "normal.Tensor_float", launches(), native_normal_tensor_float);
  HAL_NATIVE(m, normal_Tensor_float_out, "normal.Tensor_float_out", launches(), native_normal_tensor_float_out);
  HAL_NATIVE(m, normal_float_Tensor, "normal.float_Tensor", launches(), native_normal_float_tensor);
  HAL_NATIVE(m, normal_float_Tensor_out, "normal.float_Tensor_out", launches(), native_normal_float_tensor_out);
  HAL_NATIVE(m, normal_Tensor_Tensor, "normal.Tensor_Tensor", launches(), native_normal_tensor_tensor);
  HAL_NATIVE(m, normal_Tensor_Tensor_out, "normal.Tensor_Tensor_out", launches(), native_normal_tensor_tensor_out);
  HAL_NATIVE(m, multinomial, "multinomial", launches(), native_multinomial);
  HAL_NATIVE(m, multinomial_out, "multinomial.out", launches(), native_multinomial_out);
  HAL_NATIVE(m, rrelu_with_noise, "rrelu_with_noise", launches(), native_rrelu_with_noise);
  HAL_NATIVE(m, rrelu_with_noise_out, "rrelu_with_noise.out", launches(), native_rrelu_with_noise_out);
  HAL_NATIVE(m, rrelu_with_noise_, "rrelu_with_noise_", launches(), native_rrelu_with_noise_);
}

}  // namespace
}  // namespace torch_hal::native
