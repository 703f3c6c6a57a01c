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
// linspace is this one part by part (complex_data_movement.h), complex logspace composed over the output's real
// and imaginary views (complex_logspace_out).
#include <ATen/Dispatch.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/full.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/sin.h>
#include <torch/library.h>

#include <c10/util/complex.h>

#include <cmath>
#include <complex>
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

// Complex logspace. ATen's CPU kernel computes element i as std::pow(base, e) with `base` a double and e the
// complex exponent in the output dtype (start + step i below halfway, end - step (steps - 1 - i) after, the complex
// step (end - start) / (steps - 1) and each product and sum rounded to the output's real type). For a positive
// base, std::pow(double, complex) is polar(base ** Re e, Im e ln base) in double, rounded to the output at the end:
// the same here over the output's parts in its real type (moduli base ** Re e by the real pow kernel, angles
// Im e * ln base, then modulus * cos and modulus * sin). A base of 0 or below (a complex logarithm of the base,
// and pow's zero cases) keeps ATen's route, as do complex dtypes outside the real kernels (complex32).
bool complex_logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                          at::Tensor& out) {
  const at::ScalarType real = c10::toRealValueType(out.scalar_type());
  if (!(base > 0) || (real != at::kFloat && real != at::kDouble) || out.is_conj() || out.is_neg()) return false;
  if (out.numel() != steps) out.resize_({steps});
  if (steps == 0) return true;
  const auto in_real = [&](double v) { return real == at::kFloat ? static_cast<double>(static_cast<float>(v)) : v; };
  const c10::complex<double> first = start.toComplexDouble(), last = end.toComplexDouble();
  const double first_re = in_real(first.real()), first_im = in_real(first.imag());
  const double last_re = in_real(last.real()), last_im = in_real(last.imag());
  if (steps == 1) {  // CPU: pow(base, start) in complex double
    out.fill_(c10::complex<double>(std::pow(base, std::complex<double>(first_re, first_im))));
    return true;
  }
  // The step as c10::complex divides by a real count: each part rounded to the real type.
  const double step_re = in_real(in_real(last_re - first_re) / static_cast<double>(steps - 1));
  const double step_im = in_real(in_real(last_im - first_im) / static_cast<double>(steps - 1));
  const at::Tensor parts = at::view_as_real(out);
  const at::Tensor out_re = parts.select(-1, 0), out_im = parts.select(-1, 1);
  const auto options = out_re.options();
  const double log_base = std::log(base);
  // The elements [begin, end) from origin + slope * index (a product then a sum, as the CPU rounds them).
  auto write = [&](int64_t from, int64_t to, const at::Tensor& index, double origin_re, double origin_im,
                   double slope_re, double slope_im) {
    const at::Tensor e_re = index.mul(slope_re).add_(origin_re), e_im = index.mul(slope_im).add_(origin_im);
    const at::Tensor modulus = at::pow(base, e_re), angle = e_im.mul(in_real(log_base));
    out_re.slice(0, from, to).copy_(modulus.mul(at::cos(angle)));
    out_im.slice(0, from, to).copy_(modulus.mul(at::sin(angle)));
  };
  const int64_t halfway = steps / 2;
  if (halfway > 0) write(0, halfway, at::arange(halfway, options), first_re, first_im, step_re, step_im);
  write(halfway, steps, at::arange(steps - 1 - halfway, -1, -1, options), last_re, last_im, -step_re, -step_im);
  return true;
}

bool native_logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                         at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (out.is_complex()) return complex_logspace_out(start, end, steps, base, out);
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
