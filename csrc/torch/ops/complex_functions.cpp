#include "ops/complex_functions.h"

#include <cmath>
#include <complex>
#include <limits>

namespace torch_hal::native::complex_by_real_view {
namespace {

// An operand of the real arithmetic below: a tensor (a part, or a temporary) or a number.
struct Operand {
  Part part;
  Operand(const at::Tensor& t) : part(tensor(t)) {}  // NOLINT(google-explicit-constructor): formulas read as math
  Operand(double v) : part(number(v)) {}             // NOLINT(google-explicit-constructor)
  Operand(const Part& p) : part(p) {}                // NOLINT(google-explicit-constructor)
};

// Real arithmetic over tensors of the output's shape, each result a new temporary, so that the formulas below
// read as the math they compute (one kernel launch per operation, rounded once, as the CPU computes it).
class Real {
 public:
  explicit Real(Composer& c) : c_(c) {}

  at::Tensor apply(hal_op_t op, const Operand& a) {
    const at::Tensor out = c_.temp();
    c_.unary(out, op, c_.tensor_of(a.part));
    return out;
  }
  at::Tensor apply(hal_op_t op, const Operand& a, const Operand& b) {
    const at::Tensor out = c_.temp();
    c_.binary(out, op, form_of(op), a.part, b.part);
    return out;
  }
  at::Tensor add(const Operand& a, const Operand& b) { return apply(HAL_OP_ADD, a, b); }
  at::Tensor sub(const Operand& a, const Operand& b) { return apply(HAL_OP_SUB, a, b); }
  at::Tensor mul(const Operand& a, const Operand& b) { return apply(HAL_OP_MUL, a, b); }
  at::Tensor div(const Operand& a, const Operand& b) { return apply(HAL_OP_DIV, a, b); }

  // A bool tensor: op (EQ, LT, GE, ...) of a and b.
  at::Tensor test(hal_op_t op, const Operand& a, const Operand& b) {
    const at::Tensor out = c_.temp(at::kBool);
    c_.binary(out, op, Form::Comparison, a.part, b.part);
    return out;
  }
  // A bool tensor: op (ISNAN) of a.
  at::Tensor test(hal_op_t op, const Operand& a) {
    const at::Tensor out = c_.temp(at::kBool);
    c_.unary(out, op, c_.tensor_of(a.part), Form::UnaryAnyOut);
    return out;
  }
  at::Tensor select(const at::Tensor& condition, const Operand& a, const Operand& b) {
    const at::Tensor out = c_.temp();
    c_.where(out, condition, a.part, b.part);
    return out;
  }

  Composer& composer() { return c_; }

 private:
  // The binary kernels that promote integers to float take the float form (there are none here, but the
  // iterator must be the one ATen builds for the op).
  static Form form_of(hal_op_t op) {
    return op == HAL_OP_DIV || op == HAL_OP_ATAN2 || op == HAL_OP_HYPOT || op == HAL_OP_COPYSIGN ? Form::BinaryFloat
                                                                                                    : Form::Binary;
  }

  Composer& c_;
};

struct Complex {
  at::Tensor re, im;
};

// The real type's ln(2) and ln(10), as ATen's log2 / log10 divide by them (rounded from double, as
// Vectorized's _mm512_set1_ps(std::log(2)) and the scalar c10 path round them).
double logarithm_constant(const Composer& c, double v) {
  return c.real() == at::kFloat ? static_cast<double>(static_cast<float>(v)) : v;
}

// exp(x + iy) = e^x (cos y + i sin y), as cexp. e^x is taken as e^(x/2) * e^(x/2), each factor applied in turn, so
// that e^x cos y stays finite where e^x alone overflows (x just above 88 in float) but the product does not.
// The real axis stays real: where y is 0 the imaginary part is y itself, not e^x * 0 (NaN where e^x is infinite);
// exp(-inf + iy) is 0 for every y, and exp(+inf + iy) has an infinite real part for every y (NaN's cos y times
// inf gave NaN), as cexp gives them; so pow(0, w) is 0 or inf + NaN i as on the CPU.
Complex exp_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor half = r.apply(HAL_OP_EXP, r.mul(x, 0.5));
  const at::Tensor product = r.mul(r.mul(half, r.apply(HAL_OP_COS, y)), half);
  const at::Tensor infinite_x = r.test(HAL_OP_EQ, x, std::numeric_limits<double>::infinity());
  const at::Tensor lost = r.test(HAL_OP_ISNAN, r.select(infinite_x, product, 0.0));
  const at::Tensor re = r.select(lost, std::numeric_limits<double>::infinity(), product);
  const at::Tensor im = r.mul(r.mul(half, r.apply(HAL_OP_SIN, y)), half);
  const at::Tensor vanishing = r.test(HAL_OP_EQ, x, -std::numeric_limits<double>::infinity());
  return {r.select(vanishing, 0.0, re), r.select(vanishing, 0.0, r.select(r.test(HAL_OP_EQ, y, 0.0), y, im))};
}

// log z = log|z| + i arg z, as clog: |z| by hypot (no overflow of x^2 + y^2), arg by atan2, so log(0) is
// -inf + i arg(0) (pi for -0.0 real parts) and negative reals get +-pi by the sign of their zero imaginary part.
Complex log_of(Real& r, const Operand& x, const Operand& y) {
  return {r.apply(HAL_OP_LOG, r.apply(HAL_OP_HYPOT, x, y)), r.apply(HAL_OP_ATAN2, y, x)};
}

// (a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re), as c10::complex's product.
Complex multiply(Real& r, const Complex& a, const Complex& b) {
  return {r.sub(r.mul(a.re, b.re), r.mul(a.im, b.im)), r.add(r.mul(a.re, b.im), r.mul(a.im, b.re))};
}

// A bool tensor: whether both pairs are equal (a complex ==). The first pair's answer is carried into the
// second through a NaN (equal to nothing), so only real kernels run.
at::Tensor both_equal(Real& r, const Operand& a1, const Operand& b1, const Operand& a2, const Operand& b2) {
  const at::Tensor first = r.test(HAL_OP_EQ, a1, b1);
  return r.test(HAL_OP_EQ, r.select(first, a2, std::numeric_limits<double>::quiet_NaN()), b2);
}

// log1p as c10's CPU log1p (which ATen calls for complex), Kahan's way: with u = 1 + z rounded,
// log1p z = log(u) * z / (u - 1), the factor z / (u - 1) correcting log(u) for the rounding of 1 + z (the
// error of u cancels in the quotient), so small z keep their relative accuracy. Where u is exactly 1, z itself;
// where u - 1 == z (no rounding), log(u) alone.
Complex log1p_of(Real& r, Composer& c, const Operand& x, const Operand& y) {
  const at::Tensor ux = r.add(x, 1.0), dx = r.sub(ux, 1.0);
  const Complex log_u = log_of(r, ux, y);
  Complex quotient{c.temp(), c.temp()};
  divide(c, Parts{tensor(quotient.re), tensor(quotient.im)}, Parts{x.part, y.part}, Parts{tensor(dx), y.part});
  const Complex corrected = multiply(r, log_u, quotient);
  const at::Tensor unrounded = both_equal(r, dx, x, y, y);
  const at::Tensor unchanged = both_equal(r, ux, 1.0, y, 0.0);
  const at::Tensor re = r.select(unchanged, x, r.select(unrounded, log_u.re, corrected.re));
  const at::Tensor im = r.select(unchanged, y, r.select(unrounded, log_u.im, corrected.im));
  return {re, im};
}

// sqrt z, the principal root, as csqrt: t = sqrt((|z| + |x|) / 2) is the larger part's modulus, computed
// without cancellation (|z| >= |x|); the other part is |y| / (2t), which divides rather than subtracting
// |z| - |x|. x >= 0: (t, y / 2t); x < 0: (|y| / 2t, t with y's sign), so negative reals give +-i sqrt|x| by the
// sign of their zero imaginary part. z = 0 gives t = 0 (the quotient taken as 0); y infinite gives (inf, y).
Complex sqrt_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor abs_x = r.apply(HAL_OP_ABS, x), abs_y = r.apply(HAL_OP_ABS, y);
  const at::Tensor t = r.apply(HAL_OP_SQRT, r.mul(r.add(r.apply(HAL_OP_HYPOT, x, y), abs_x), 0.5));
  const at::Tensor q = r.select(r.test(HAL_OP_EQ, t, 0.0), 0.0, r.div(r.mul(abs_y, 0.5), t));
  const at::Tensor right_half = r.test(HAL_OP_GE, x, 0.0);  // false for NaN: both parts then NaN through t
  const at::Tensor re = r.select(right_half, t, q);
  const at::Tensor im = r.apply(HAL_OP_COPYSIGN, r.select(right_half, q, t), y);
  const at::Tensor y_infinite = r.test(HAL_OP_EQ, abs_y, std::numeric_limits<double>::infinity());
  return {r.select(y_infinite, std::numeric_limits<double>::infinity(), re), r.select(y_infinite, y, im)};
}

// factor * cosh a, or factor * sinh a (odd), finite wherever the product is. For |a| > 20, cosh a and |sinh a|
// both equal e^|a| / 2 to well below the rounding of float and double (e^-2|a| < 1e-17), and the product is taken
// as (factor / 2) e^(|a|/2) e^(|a|/2), one factor at a time, so that it does not overflow where e^|a| alone
// does (|a| > 89 in float) while the product is finite (a small factor: sin x cosh y for a tiny x).
at::Tensor times_hyperbolic(Real& r, const at::Tensor& factor, const Operand& a, bool odd) {
  const at::Tensor direct = r.mul(factor, r.apply(odd ? HAL_OP_SINH : HAL_OP_COSH, a));
  const at::Tensor abs_a = r.apply(HAL_OP_ABS, a);
  const at::Tensor root = r.apply(HAL_OP_EXP, r.mul(abs_a, 0.5));
  const Operand half = odd ? Operand(r.apply(HAL_OP_COPYSIGN, 0.5, a)) : Operand(0.5);
  const at::Tensor large = r.mul(r.mul(r.mul(factor, half), root), root);
  return r.select(r.test(HAL_OP_GT, abs_a, 20.0), large, direct);
}

// sinh(x + iy) = sinh x cos y + i cosh x sin y and cosh(x + iy) = cosh x cos y + i sinh x sin y, as csinh /
// ccosh. The axes map to axes as there: on the real axis the imaginary part is 0 (y itself for sinh), not an
// overflowed cosh x times 0; on the imaginary axis the part with sinh x is 0, not 0 times cos(inf) (NaN).
Complex sinh_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor re = times_hyperbolic(r, r.apply(HAL_OP_COS, y), x, true);
  const at::Tensor im = times_hyperbolic(r, r.apply(HAL_OP_SIN, y), x, false);
  return {r.select(r.test(HAL_OP_EQ, x, 0.0), x, re), r.select(r.test(HAL_OP_EQ, y, 0.0), y, im)};
}
Complex cosh_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor re = times_hyperbolic(r, r.apply(HAL_OP_COS, y), x, false);
  const at::Tensor im = times_hyperbolic(r, r.apply(HAL_OP_SIN, y), x, true);
  return {re, r.select(r.test(HAL_OP_EQ, x, 0.0), 0.0, r.select(r.test(HAL_OP_EQ, y, 0.0), 0.0, im))};
}

// sin(x + iy) = sin x cosh y + i cos x sinh y and cos(x + iy) = cos x cosh y - i sin x sinh y, as csin / ccos
// (sinh and cosh of i z). The axes map to axes: on the imaginary axis the part with sin x is 0, not 0 times an
// overflowed cosh y; on the real axis the part with sinh y is 0, not 0 times sin(inf) (NaN).
Complex sin_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor re = times_hyperbolic(r, r.apply(HAL_OP_SIN, x), y, false);
  const at::Tensor im = times_hyperbolic(r, r.apply(HAL_OP_COS, x), y, true);
  return {r.select(r.test(HAL_OP_EQ, x, 0.0), x, re), r.select(r.test(HAL_OP_EQ, y, 0.0), y, im)};
}
Complex cos_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor re = times_hyperbolic(r, r.apply(HAL_OP_COS, x), y, false);
  const at::Tensor im = r.apply(HAL_OP_NEG, times_hyperbolic(r, r.apply(HAL_OP_SIN, x), y, true));
  return {re, r.select(r.test(HAL_OP_EQ, x, 0.0), 0.0, r.select(r.test(HAL_OP_EQ, y, 0.0), 0.0, im))};
}

// tanh(x + iy) with t = tanh x, T = tan y:
//   (t (1 + T^2) + i T (1 - t^2)) / (1 + t^2 T^2)
// (the sum formula of tanh with tanh(iy) = i tan y, times its conjugate denominator). Unlike
// sinh z / cosh z, nothing overflows for large |x|: t goes to +-1, and 1 - t^2 is taken as sech^2 x =
// 1 / cosh^2 x, which goes to 0 without the cancellation of 1 - t^2 (exact there, 0 where cosh x overflows), so
// tanh(+-inf + iy) = +-1 + 0i. T is finite for every finite float y (no float is an odd multiple of pi/2).
Complex tanh_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor t = r.apply(HAL_OP_TANH, x), tan_y = r.apply(HAL_OP_TAN, y);
  const at::Tensor sech = r.div(1.0, r.apply(HAL_OP_COSH, x));
  const at::Tensor product = r.mul(t, tan_y);
  const at::Tensor denominator = r.add(1.0, r.mul(product, product));
  const at::Tensor re = r.div(r.mul(t, r.add(1.0, r.mul(tan_y, tan_y))), denominator);
  const at::Tensor im = r.div(r.mul(tan_y, r.mul(sech, sech)), denominator);
  return {re, r.select(r.test(HAL_OP_EQ, y, 0.0), y, im)};  // the real axis stays real (tanh(NaN) + 0i)
}

// tan z = -i tanh(iz); with iz = -y + ix and tanh odd in its real part this is tanh(y + ix) with its parts
// swapped: tan(x + iy) = Im tanh(y + ix) + i Re tanh(y + ix).
Complex tan_of(Real& r, const Operand& x, const Operand& y) {
  const Complex swapped = tanh_of(r, y, x);
  return {swapped.im, swapped.re};
}

// sgn z = z / |z|, 0 at 0, as ATen's (each part divided by hypot(x, y)).
Complex sgn_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor modulus = r.apply(HAL_OP_HYPOT, x, y);
  const at::Tensor zero = r.test(HAL_OP_EQ, modulus, 0.0);
  return {r.select(zero, 0.0, r.div(x, modulus)), r.select(zero, 0.0, r.div(y, modulus))};
}

// Writes a result's parts into dst's.
void store(Composer& c, const Parts& dst, const Complex& v) {
  c.copy(dst.re.tensor, v.re);
  c.copy(dst.im.tensor, v.im);
}

// sigmoid z = 1 / (1 + exp(-z)), as ATen's complex kernel (the reciprocal by complex division).
void sigmoid(Composer& c, const Parts& dst, const Parts& z) {
  Real r(c);
  const Complex e = exp_of(r, r.apply(HAL_OP_NEG, z.re), r.apply(HAL_OP_NEG, z.im));
  divide(c, dst, Parts{number(1.0), number(0.0)}, Parts{tensor(r.add(1.0, e.re)), tensor(e.im)});
}

// log2 z, log10 z: log z divided by the real ln 2 or ln 10 part by part, as ATen's vectorized kernel.
Complex log_base(Real& r, const Parts& z, double ln_base) {
  const Complex l = log_of(r, z.re, z.im);
  const double divisor = logarithm_constant(r.composer(), ln_base);
  return {r.div(l.re, divisor), r.div(l.im, divisor)};
}

// dst's part = a part (copied, the COPY kernel converting a real operand's dtype) or a number (filled).
void assign(Composer& c, const at::Tensor& dst, const Part& p) {
  if (p.is_number()) c.fill(dst, p.value);
  else c.copy(dst, p.tensor);
}

}  // namespace

bool is_exact_power(c10::complex<double> e) {
  return e == 0.0 || e == 1.0 || e == 0.5 || e == -0.5 || e == -1.0 || e == 2.0 || e == 3.0 || e == -2.0;
}

void compose_exact_power(Composer& c, const Parts& dst, const Parts& base, c10::complex<double> e) {
  Real r(c);
  const Parts one{number(1.0), number(0.0)};
  if (e == 0.0) {
    c.fill(dst.re.tensor, 1.0);
    return c.fill(dst.im.tensor, 0.0);
  }
  if (e == 1.0) {
    assign(c, dst.re.tensor, base.re);
    return assign(c, dst.im.tensor, base.im);
  }
  if (e == 0.5) return compose_function(c, ComplexFunction::Sqrt, dst, base);
  if (e == -0.5) return compose_function(c, ComplexFunction::Rsqrt, dst, base);
  if (e == -1.0) return divide(c, dst, one, base);
  const Complex b{c.tensor_of(base.re), c.tensor_of(base.im)};
  if (e == 2.0) return store(c, dst, multiply(r, b, b));
  if (e == 3.0) return store(c, dst, multiply(r, multiply(r, b, b), b));
  const Complex square = multiply(r, b, b);  // -2
  divide(c, dst, one, Parts{tensor(square.re), tensor(square.im)});
}

std::optional<ComplexFunction> complex_function_of(hal_op_t op) {
  switch (op) {
    case HAL_OP_EXP: return ComplexFunction::Exp;
    case HAL_OP_LOG: return ComplexFunction::Log;
    case HAL_OP_LOG2: return ComplexFunction::Log2;
    case HAL_OP_LOG10: return ComplexFunction::Log10;
    case HAL_OP_LOG1P: return ComplexFunction::Log1p;
    case HAL_OP_SQRT: return ComplexFunction::Sqrt;
    case HAL_OP_RSQRT: return ComplexFunction::Rsqrt;
    case HAL_OP_SIN: return ComplexFunction::Sin;
    case HAL_OP_COS: return ComplexFunction::Cos;
    case HAL_OP_TAN: return ComplexFunction::Tan;
    case HAL_OP_SINH: return ComplexFunction::Sinh;
    case HAL_OP_COSH: return ComplexFunction::Cosh;
    case HAL_OP_TANH: return ComplexFunction::Tanh;
    case HAL_OP_SIGMOID: return ComplexFunction::Sigmoid;
    default: return std::nullopt;
  }
}

void compose_function(Composer& c, ComplexFunction f, const Parts& dst, const Parts& z) {
  Real r(c);
  const Part &x = z.re, &y = z.im;
  switch (f) {
    case ComplexFunction::Exp: return store(c, dst, exp_of(r, x, y));
    case ComplexFunction::Log: return store(c, dst, log_of(r, x, y));
    case ComplexFunction::Log2: return store(c, dst, log_base(r, z, std::log(2.0)));
    case ComplexFunction::Log10: return store(c, dst, log_base(r, z, std::log(10.0)));
    case ComplexFunction::Log1p: return store(c, dst, log1p_of(r, c, x, y));
    case ComplexFunction::Sqrt: return store(c, dst, sqrt_of(r, x, y));
    case ComplexFunction::Rsqrt: {  // 1 / sqrt z, as ATen (complex division)
      const Complex s = sqrt_of(r, x, y);
      return divide(c, dst, Parts{number(1.0), number(0.0)}, Parts{tensor(s.re), tensor(s.im)});
    }
    case ComplexFunction::Sin: return store(c, dst, sin_of(r, x, y));
    case ComplexFunction::Cos: return store(c, dst, cos_of(r, x, y));
    case ComplexFunction::Tan: return store(c, dst, tan_of(r, x, y));
    case ComplexFunction::Sinh: return store(c, dst, sinh_of(r, x, y));
    case ComplexFunction::Cosh: return store(c, dst, cosh_of(r, x, y));
    case ComplexFunction::Tanh: return store(c, dst, tanh_of(r, x, y));
    case ComplexFunction::Sigmoid: return sigmoid(c, dst, z);
    case ComplexFunction::Sgn: return store(c, dst, sgn_of(r, x, y));
  }
}

// A NaN in the real part is carried into the imaginary one (where), so one isnan of the result answers for both
// parts with real kernels only (adapters may lack bool logical kernels).
void compose_isnan(Composer& c, const at::Tensor& dst, const Parts& z) {
  Real r(c);
  const at::Tensor carried = r.select(r.test(HAL_OP_ISNAN, z.re), std::numeric_limits<double>::quiet_NaN(), z.im);
  c.unary(dst, HAL_OP_ISNAN, carried, Form::UnaryAnyOut);
}

}  // namespace torch_hal::native::complex_by_real_view
