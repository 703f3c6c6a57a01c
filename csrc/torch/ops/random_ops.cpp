// Random ops over the adapter's counter-based kernels: uniform_, normal_, random_ (integer dtypes),
// bernoulli_ / bernoulli, randperm, and native_dropout (mask and output in one pass) with its backward, so
// that models with dropout stay on the device.
//
// Each launch takes (seed, offset) from the hal generator (runtime/generator.h), which advances its offset by
// the counters it draws (the element count; a quarter of it for dropout), so results depend only on the seed
// and the sequence of draws: manual_seed makes them reproducible, and get_rng_state/set_rng_state round-trip
// them.
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/SymInt.h>
#include <c10/util/Half.h>
#include <c10/util/BFloat16.h>
#include <torch/library.h>

#include <cmath>
#include <limits>

#include "dispatch/native_first.h"
#include "runtime/generator.h"

namespace torch_hal::native {
namespace {

// Launches a random op writing `out` (numel elements, drawn from counters offset + i); the op's own
// scalars are `leading` followed by seed and offset. False, with nothing launched, when unsupported.
bool launch_random(hal_op_t op, const at::Tensor& out, KernelArgs& args, const std::optional<at::Generator>& gen,
                   uint64_t count) {
  const c10::DeviceIndex device = out.device().index();
  if (!args.representable() || !has_native_kernels(device)) return false;
  const auto [seed, offset] = philox_seed_and_advance(gen, device, count);
  args.scalar(static_cast<int64_t>(seed)).scalar(static_cast<int64_t>(offset));
  return launch(device, op, args);
}

double floating_max(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return static_cast<double>(std::numeric_limits<c10::Half>::max());
    case at::kBFloat16: return static_cast<double>(std::numeric_limits<c10::BFloat16>::max());
    case at::kFloat: return static_cast<double>(std::numeric_limits<float>::max());
    default: return std::numeric_limits<double>::max();
  }
}

bool uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator) {
  // A complex uniform as ATen draws it: both parts uniform in [from, to), through the real view.
  if (self.is_complex() && !self.is_conj() && !self.is_neg()) {
    at::Tensor parts = at::view_as_real(self);
    return uniform_(parts, from, to, std::move(generator));
  }
  const at::ScalarType type = self.scalar_type();
  if (!at::isFloatingType(type)) return false;
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  TORCH_CHECK(to - from <= floating_max(type), "uniform_ expects to-from <= std::numeric_limits<", c10::toString(type),
              ">::max(), but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
  if (self.numel() == 0) return has_native_kernels(self.device().index());
  KernelArgs args;
  args.output(self).scalar(from).scalar(to);
  return launch_random(HAL_OP_UNIFORM, self, args, generator, static_cast<uint64_t>(self.numel()));
}

bool normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  // A complex normal as ATen draws it: real and imaginary parts each normal with std / sqrt(2) (the variance of
  // the complex value is std^2), mean added to both, through the real view.
  if (self.is_complex() && !self.is_conj() && !self.is_neg()) {
    at::Tensor parts = at::view_as_real(self);
    return normal_(parts, mean, std / std::sqrt(2.0), std::move(generator));
  }
  if (!at::isFloatingType(self.scalar_type())) return false;
  if (self.numel() == 0) return has_native_kernels(self.device().index());
  KernelArgs args;
  args.output(self).scalar(mean).scalar(std);
  return launch_random(HAL_OP_NORMAL, self, args, generator, static_cast<uint64_t>(self.numel()));
}

// [min, max] of the integer dtypes random_ fills natively (bool counts as [0, 1]).
std::optional<std::pair<int64_t, int64_t>> integer_bounds(at::ScalarType t) {
  switch (t) {
    case at::kBool: return std::make_pair(int64_t{0}, int64_t{1});
    case at::kByte: return std::make_pair(int64_t{0}, int64_t{255});
    case at::kChar: return std::make_pair(int64_t{-128}, int64_t{127});
    case at::kShort: return std::make_pair(int64_t{-32768}, int64_t{32767});
    case at::kInt: return std::make_pair(int64_t{std::numeric_limits<int32_t>::min()}, int64_t{std::numeric_limits<int32_t>::max()});
    case at::kLong: return std::make_pair(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    default: return std::nullopt;
  }
}

// Integers uniform in [from, last]: UNIFORM into an integer output takes from and the exclusive bound
// last + 1 modulo 2^64 (kernels/random.cu), so the whole int64 range is expressible.
bool random_in(at::Tensor& self, int64_t from, int64_t last, const std::optional<at::Generator>& generator) {
  if (self.numel() == 0) return has_native_kernels(self.device().index());
  const auto to_exclusive = static_cast<int64_t>(static_cast<uint64_t>(last) + 1);
  KernelArgs args;
  args.output(self).scalar(from).scalar(to_exclusive);
  return launch_random(HAL_OP_UNIFORM, self, args, generator, static_cast<uint64_t>(self.numel()));
}

// random_(): [0, max] of the dtype; floating dtypes take ATen's path.
bool random_default(at::Tensor& self, std::optional<at::Generator> generator) {
  const auto bounds = integer_bounds(self.scalar_type());
  if (!bounds) return false;
  return random_in(self, 0, bounds->second, generator);
}

// random_(from, to) into a floating tensor (randint with a float dtype): integers drawn as int64, then converted.
// Without `to`, ATen's bound is the dtype's largest consecutive integer: that case takes ATen's path.
bool random_from_floating(at::Tensor& self, int64_t from, std::optional<int64_t> to,
                          const std::optional<at::Generator>& generator) {
  if (!at::isFloatingType(self.scalar_type()) || !to.has_value()) return false;
  TORCH_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
  at::Tensor ints = at::empty(self.sizes(), self.options().dtype(at::kLong));
  if (!random_in(ints, from, *to - 1, generator)) return false;
  self.copy_(ints);
  return true;
}

bool random_from(at::Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<at::Generator> generator) {
  const auto bounds = integer_bounds(self.scalar_type());
  if (!bounds) return random_from_floating(self, from, to, generator);
  if (to.has_value()) {
    TORCH_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
  }
  const int64_t last = to.has_value() ? *to - 1 : bounds->second;
  // Bounds outside the dtype: ATen's kernel raises its own message.
  if (from < bounds->first || from > bounds->second || last > bounds->second) return false;
  return random_in(self, from, last, generator);
}

bool random_to(at::Tensor& self, int64_t to, std::optional<at::Generator> generator) {
  return random_from(self, 0, to, generator);
}

bool bernoulli_scalar_(at::Tensor& self, double p, std::optional<at::Generator> generator) {
  TORCH_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (self.numel() == 0) return has_native_kernels(self.device().index());
  KernelArgs args;
  args.scalar_input(p, at::kDouble).output(self);
  return launch_random(HAL_OP_BERNOULLI, self, args, generator, static_cast<uint64_t>(self.numel()));
}

bool bernoulli_tensor_(at::Tensor& self, const at::Tensor& p, std::optional<at::Generator> generator) {
  if (p.device() != self.device() || !at::isFloatingType(p.scalar_type())) return false;
  const at::Tensor probabilities = p.expand(self.sizes());
  if (self.numel() == 0) return has_native_kernels(self.device().index());
  KernelArgs args;
  args.input(probabilities).output(self);
  return launch_random(HAL_OP_BERNOULLI, self, args, generator, static_cast<uint64_t>(self.numel()));
}

std::optional<at::Tensor> bernoulli(const at::Tensor& self, std::optional<at::Generator> generator) {
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (!bernoulli_tensor_(out, self, generator)) return std::nullopt;
  return out;
}

bool randperm_out(c10::SymInt n, std::optional<at::Generator> generator, at::Tensor& out) {
  const int64_t count = n.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(count >= 0, "n must be non-negative, got", count);
  if (out.scalar_type() != at::kLong) return false;
  at::native::resize_output(out, {count});
  if (count == 0) return has_native_kernels(out.device().index());
  KernelArgs args;
  args.output(out);
  return launch_random(HAL_OP_RANDPERM, out, args, generator, static_cast<uint64_t>(count));
}

// As ATen's CUDA kernel: (input * mask / (1 - p), mask) with mask ~ Bernoulli(1 - p) as bool, drawn and applied in
// one pass (HAL_OP_DROPOUT) for dense inputs; others take a bernoulli mask and two multiplications.
std::optional<std::tuple<at::Tensor, at::Tensor>> native_dropout(const at::Tensor& input, double p,
                                                                 std::optional<bool> train) {
  const at::TensorOptions mask_options = input.options().dtype(at::kBool);
  if (train.has_value() && !*train) return std::make_tuple(input.clone(), at::ones_like(input, mask_options));
  TORCH_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 1) return std::make_tuple(at::zeros_like(input), at::zeros_like(input, mask_options));
  if (!at::isFloatingType(input.scalar_type())) return std::nullopt;
  at::Tensor mask = at::empty_like(input, mask_options);
  if (input.is_non_overlapping_and_dense()) {
    at::Tensor output = at::empty_like(input);  // the input's strides, as the mask's
    if (input.numel() == 0) return std::make_tuple(std::move(output), std::move(mask));
    KernelArgs args;  // flat operands (adapter_ops.def): the mask and output have the input's strides
    args.input_flat(input).output_flat(output).output_flat(mask).scalar(1 - p);
    const uint64_t counters = (static_cast<uint64_t>(input.numel()) + 3) / 4;  // four elements per counter
    if (launch_random(HAL_OP_DROPOUT, output, args, std::nullopt, counters)) {
      return std::make_tuple(std::move(output), std::move(mask));
    }
  }
  if (!bernoulli_scalar_(mask, 1 - p, std::nullopt)) return std::nullopt;
  at::Tensor output = at::mul(input, mask);
  output.mul_(1.0 / (1.0 - p));
  return std::make_tuple(std::move(output), std::move(mask));
}

std::optional<at::Tensor> native_dropout_backward(const at::Tensor& grad_output, const at::Tensor& mask, double scale) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "Mask should be Bool Scalar Type", mask.scalar_type());
  if (grad_output.is_non_overlapping_and_dense() && at::isFloatingType(grad_output.scalar_type()) &&
      mask.sizes() == grad_output.sizes() && mask.strides() == grad_output.strides() &&
      mask.device() == grad_output.device()) {
    at::Tensor grad_input = at::empty_like(grad_output);
    if (grad_output.numel() == 0) return grad_input;
    KernelArgs args;
    args.input_flat(grad_output).input_flat(mask).output_flat(grad_input).scalar(scale);
    if (args.representable() && launch(grad_output.device().index(), HAL_OP_DROPOUT_BACKWARD, args)) return grad_input;
  }
  // ATen's grad_output * mask * scale: an integer or bool gradient gives a result of the default floating dtype
  // (the CPU's answer; in place, the floating product would not fit the gradient's dtype).
  at::Tensor grad_input = at::mul(grad_output, mask);
  if (!at::isFloatingType(grad_input.scalar_type()) && !grad_input.is_complex()) return grad_input.mul(scale);
  grad_input.mul_(scale);
  return grad_input;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, uniform_, "uniform_", launches(HAL_OP_UNIFORM), uniform_);
  HAL_NATIVE(m, normal_, "normal_", launches(HAL_OP_NORMAL), normal_);
  HAL_NATIVE(m, random_, "random_", launches(HAL_OP_UNIFORM), random_default);
  HAL_NATIVE(m, random__from, "random_.from", launches(HAL_OP_UNIFORM), random_from);
  HAL_NATIVE(m, random__to, "random_.to", launches(HAL_OP_UNIFORM), random_to);
  HAL_NATIVE(m, bernoulli__float, "bernoulli_.float", launches(HAL_OP_BERNOULLI), bernoulli_scalar_);
  HAL_NATIVE(m, bernoulli__Tensor, "bernoulli_.Tensor", launches(HAL_OP_BERNOULLI), bernoulli_tensor_);
  HAL_NATIVE(m, bernoulli, "bernoulli", launches(HAL_OP_BERNOULLI), bernoulli);
  HAL_NATIVE(m, randperm_generator_out, "randperm.generator_out", launches(HAL_OP_RANDPERM), randperm_out);
  HAL_NATIVE(m, native_dropout, "native_dropout", launches(HAL_OP_DROPOUT, HAL_OP_BERNOULLI), native_dropout);
  HAL_NATIVE(m, native_dropout_backward, "native_dropout_backward", launches(HAL_OP_DROPOUT_BACKWARD),
             native_dropout_backward);
}

}  // namespace
}  // namespace torch_hal::native
