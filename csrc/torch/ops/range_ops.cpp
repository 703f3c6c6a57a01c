// linspace.out and logspace.out (linspace, logspace and their Tensor-argument forms reach these through ATen's
// composite kernels) from arange and elementwise math.
//
// Element i is start + step i for i < steps / 2 and end - step (steps - 1 - i) after, as ATen's CPU and CUDA
// kernels compute it, so both ends are exact. start, end and step are ATen's: start and end converted to the
// output dtype first (an integer output truncates them), step in the output dtype for floating outputs and in
// double for integer ones, whose elements are computed in double and truncated as the CPU truncates. The
// roundings follow the CPU's scalar path (see spacing and log_spacing), so the values match it bit for bit
// where the CPU takes that path; its vectorized path (linspace of 2 * vector width or more elements) rounds
// differently, by an ulp or so for floating outputs. Bool outputs keep ATen's route (its error); complex
// linspace is this one part by part (complex_data_movement.h), complex logspace ATen's kernel.
#include <ATen/Dispatch.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/full.h>
#include <ATen/ops/pow.h>
#include <torch/library.h>

#include <cmath>
#include <optional>
#include <type_traits>

#include "dispatch/native_first.h"
#include "ops/complex_data_movement.h"

namespace torch_hal::native {
namespace {

struct Spacing {
  double start, end, step;
  at::ScalarType compute;  // the dtype the elements are computed in
  bool fused;              // start + step i as one fused multiply-add (add's alpha), else a product then a sum
};

// linspace: ATen's CPU kernel is compiled with FMA contraction (and CUDA's nvcc contracts by default), so for
// float, double and integer outputs the elements are fma(step, i, start): add(start, i, alpha=step) in one
// kernel gives the same single rounding. float16 / bfloat16 go through c10::Half's operators on the CPU, each
// rounding to the dtype: step i, then start + that, which the same ops in the output dtype reproduce.
Spacing spacing(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::ScalarType type) {
  Spacing s{};
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, type, "hal_linspace", [&] {
    using step_t = std::conditional_t<std::is_integral_v<scalar_t>, double, scalar_t>;
    const scalar_t first = start.to<scalar_t>(), last = end.to<scalar_t>();
    const step_t step = (static_cast<step_t>(last) - static_cast<step_t>(first)) / (steps - 1);
    constexpr bool reduced = std::is_same_v<scalar_t, at::Half> || std::is_same_v<scalar_t, at::BFloat16>;
    const at::ScalarType compute = reduced ? type : std::is_same_v<scalar_t, float> ? at::kFloat : at::kDouble;
    s = {static_cast<double>(first), static_cast<double>(last), static_cast<double>(step), compute, !reduced};
  });
  return s;
}

// logspace: ATen's CPU kernel (in RangeFactories.cpp, compiled without FMA) computes the exponents in double,
// step = (end - start) / (steps - 1) from start and end in the output dtype, a product then a sum, and the
// power in double; the same here, converted to the output dtype at the end.
Spacing log_spacing(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::ScalarType type) {
  Spacing s{};
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, type, "hal_logspace", [&] {
    const scalar_t first = start.to<scalar_t>(), last = end.to<scalar_t>();
    const double step = static_cast<double>(last - first) / (steps - 1);
    s = {static_cast<double>(first), static_cast<double>(last), step, at::kDouble, false};
  });
  return s;
}

bool spaceable(at::ScalarType t) { return t != at::kBool && !at::isComplexType(t); }

// Writes the two halves of the sequence (or their powers of `base`) into out's two slices:
// start + step i for i in [0, halfway), end - step k for k = steps - 1 - i, i in [halfway, steps).
void write_halves(const Spacing& s, int64_t steps, const std::optional<double>& base, at::Tensor& out) {
  const int64_t halfway = steps / 2;
  const auto options = out.options().dtype(s.compute);
  auto finish = [&](const at::Tensor& values) { return base ? at::pow(*base, values) : values; };
  auto line = [&](double origin, double slope, const at::Tensor& index) {
    if (s.fused) return at::full({index.numel()}, origin, options).add_(index, slope);
    return index.mul(slope).add_(origin);
  };
  if (halfway > 0) out.slice(0, 0, halfway).copy_(finish(line(s.start, s.step, at::arange(halfway, options))));
  const at::Tensor k = at::arange(steps - 1 - halfway, -1, -1, options);
  out.slice(0, halfway, steps).copy_(finish(line(s.end, -s.step, k)));
}

bool native_linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::Tensor& out) {
  if (out.is_complex()) return complex_data_movement::linspace_out(start, end, steps, out);
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (!spaceable(out.scalar_type())) return false;
  if (out.numel() != steps) out.resize_({steps});
  if (steps == 0) return true;
  if (steps == 1) {
    out.fill_(start);
    return true;
  }
  write_halves(spacing(start, end, steps, out.scalar_type()), steps, std::nullopt, out);
  return true;
}

bool native_logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                         at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (!spaceable(out.scalar_type())) return false;
  if (out.numel() != steps) out.resize_({steps});
  if (steps == 0) return true;
  if (steps == 1) {  // CPU: base ** start in double
    out.fill_(std::pow(base, start.to<double>()));
    return true;
  }
  write_halves(log_spacing(start, end, steps, out.scalar_type()), steps, base, out);
  return true;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, linspace_out, "linspace.out", launches(), native_linspace_out);
  HAL_NATIVE(m, logspace_out, "logspace.out", launches(), native_logspace_out);
}

}  // namespace
}  // namespace torch_hal::native
