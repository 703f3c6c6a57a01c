// Complex elementary functions (exp, log, sqrt, the trigonometric and hyperbolic functions and their inverses,
// sigmoid, silu, sgn, angle) and the complex forms of logaddexp, lerp, addcmul and addcdiv, composed of the adapter's
// real kernels over (real, imaginary) parts, for complex_by_real_view.cpp. Each follows the
// function that ATen's CPU kernel calls (std::complex's, i.e. the C library's cexpf, clogf, ..., or c10's own
// formula where ATen has one), with formulas chosen to stay accurate where a textbook one would overflow or cancel.
#pragma once

#include <c10/util/complex.h>

#include <optional>

#include "ops/complex_parts.h"

namespace torch_hal::native::complex_by_real_view {

enum class ComplexFunction {
  Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt,
  Sin, Cos, Tan, Sinh, Cosh, Tanh, Asin, Acos, Atan, Asinh, Acosh, Atanh,
  Sigmoid, Silu, Sinc, Sgn,
};

// The function an adapter op id names for a complex operand; nullopt for ids that are not one of these. SIGN
// is not sgn: torch.sign refuses complex tensors, so it must take ATen's path (sgn has its own entry).
std::optional<ComplexFunction> complex_function_of(hal_op_t op);

// dst (the complex output's parts, of the composer's shape) = f(z).
void compose_function(Composer& c, ComplexFunction f, const Parts& dst, const Parts& z);

// pow with a Python-number exponent that ATen's CPU kernel computes by a special form rather than by
// exp(w log z): 0 (ones), 1 (a copy), 2, 3 and -2 (products), 0.5, -0.5 and -1 (sqrt, rsqrt, reciprocal).
// Other exponents are composed by compose_power in complex128, complex64 ones too (rounded once at the end):
// exp(w log z) over float32 kernels drifts past complex64's tolerance (2e-6 relative at |z ** w| ~ 1e4), where
// the C library's cpowf keeps extra precision.
bool is_exact_power(c10::complex<double> exponent);
void compose_exact_power(Composer& c, const Parts& dst, const Parts& base, c10::complex<double> exponent);
// dst = base ** exponent as the C library's cpow: exp(exponent * log base), the product as c10::complex's; so
// 0 ** w is exp(w * (-inf + 0i)) (0 for Re w > 0), as on the CPU.
void compose_power(Composer& c, const Parts& dst, const Parts& base, const Parts& exponent);

// pow(base, exponent) for a single base value (pow.Scalar's number, or pow.Tensor_Tensor's 0-dim self: ldexp's
// 2 ** other, number ** z) and a result of complex dtype `common` (ATen's result type of the two): ATen's CPU kernel calls the C library's cpow, which is
// cexp(exponent * clog(base)) rounded step by step in the real type. clog of the one base is taken here on the
// host by the same C library function, so only the product and the exponential run as kernels, and the result
// stays within the dtype's tolerance of the CPU's (a clog computed by float kernels is not: the exponential turns
// an ulp of the logarithm times |exponent| into a relative error past complex64's tolerance). Into `out` when
// defined (resized as ATen's out= does), else a new tensor. nullopt where this is not done: a real `common`, a base
// of zero or not finite (cpow's special cases), an exponent parts_of does not take, an out of another dtype or
// sharing the exponent's memory.
std::optional<at::Tensor> power_of_number(const c10::Scalar& base, at::ScalarType common, const at::Tensor& exponent,
                                          const at::Tensor& out);

// dst (real, of the composer's dtype) = angle z = atan2(Im z, Re z), as ATen's kernel.
void compose_angle(Composer& c, const at::Tensor& dst, const Parts& z);

// dst = logaddexp(a, b) = log(e^a + e^b), as ATen's CPU kernel for complex operands (_log_add_exp_helper):
// log1p(exp(min - max)) + max with min, max ordered by their real parts, and its NaN and infinity cases.
void compose_logaddexp(Composer& c, const Parts& dst, const Parts& a, const Parts& b);

// dst = lerp(start, end, weight), as ATen's CPU kernel: start + w (end - start) where |w| < 0.5, else
// end + (w - 1) (end - start), so that w near 1 gives end accurately.
void compose_lerp(Composer& c, const Parts& dst, const Parts& start, const Parts& end, const Parts& weight);

// dst = self + value * t1 * t2 (addcmul) or self + value * t1 / t2 (addcdiv), the products and the quotient
// taken left to right as ATen's CPU kernel takes them; `value` is the op's scalar converted to the complex dtype.
void compose_addcmul(Composer& c, const Parts& dst, const Parts& self, const Parts& t1, const Parts& t2,
                     const Parts& value);
void compose_addcdiv(Composer& c, const Parts& dst, const Parts& self, const Parts& t1, const Parts& t2,
                     const Parts& value);

// dst (bool) = whether either part of z is NaN, as ATen's isnan (z != z).
void compose_isnan(Composer& c, const at::Tensor& dst, const Parts& z);

}  // namespace torch_hal::native::complex_by_real_view
