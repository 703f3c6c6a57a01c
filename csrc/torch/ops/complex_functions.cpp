#include "ops/complex_functions.h"

#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>

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

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

// A constant as the real type holds it (ln 2, ln 10, pi): ATen's kernels round them from double once (Vectorized's
// _mm512_set1_ps(std::log(2)), c10::pi<float>) and compute with the rounded value.
double in_real_dtype(const Composer& c, double v) {
  return c.real() == at::kFloat ? static_cast<double>(static_cast<float>(v)) : v;
}

// 1 / epsilon of the real type. Past this modulus the inverse functions' asymptotic forms (log 2|z|, arg z) are
// exact to rounding (their neglected terms are O(1 / |z|^2) < eps^2), while below it the direct formulas' squares
// (|z|^2 < 2^104 in float) cannot overflow.
double reciprocal_epsilon(const Composer& c) { return c.real() == at::kFloat ? 0x1p23 : 0x1p52; }

// exp(x + iy) = e^x (cos y + i sin y), as cexp. e^x is taken as e^(x/2) * e^(x/2), each factor applied in turn, so
// that e^x cos y stays finite where e^x alone overflows (x just above 88 in float) but the product does not.
// The real axis stays real: where y is 0 the imaginary part is y itself, not e^x * 0 (NaN where e^x is infinite);
// exp(-inf + iy) is 0 for every y, and exp(+inf + iy) has an infinite real part for every y (NaN's cos y times
// inf gave NaN), as cexp gives them; so pow(0, w) is 0 or inf + NaN i as on the CPU. The zeros of exp(-inf + iy)
// carry the signs of cos y and sin y (of y itself where y is not finite), as cexp's.
Complex exp_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor half = r.apply(HAL_OP_EXP, r.mul(x, 0.5));
  const at::Tensor cos_y = r.apply(HAL_OP_COS, y), sin_y = r.apply(HAL_OP_SIN, y);
  const at::Tensor product = r.mul(r.mul(half, cos_y), half);
  const at::Tensor infinite_x = r.test(HAL_OP_EQ, x, std::numeric_limits<double>::infinity());
  const at::Tensor lost = r.test(HAL_OP_ISNAN, r.select(infinite_x, product, 0.0));
  const at::Tensor re = r.select(lost, std::numeric_limits<double>::infinity(), product);
  const at::Tensor im = r.mul(r.mul(half, sin_y), half);
  const at::Tensor vanishing = r.test(HAL_OP_EQ, x, -std::numeric_limits<double>::infinity());
  const at::Tensor zero_re = r.apply(HAL_OP_COPYSIGN, 0.0, r.select(r.test(HAL_OP_ISNAN, cos_y), 1.0, cos_y));
  const at::Tensor zero_im = r.apply(HAL_OP_COPYSIGN, 0.0, r.select(r.test(HAL_OP_ISNAN, sin_y), y, sin_y));
  return {r.select(vanishing, zero_re, re),
          r.select(vanishing, zero_im, r.select(r.test(HAL_OP_EQ, y, 0.0), y, im))};
}

// log z = log|z| + i arg z, as clog: |z| by hypot (no overflow of x^2 + y^2), arg by atan2, so log(0) is
// -inf + i arg(0) (pi for -0.0 real parts) and negative reals get +-pi by the sign of their zero imaginary part.
Complex log_of(Real& r, const Operand& x, const Operand& y) {
  return {r.apply(HAL_OP_LOG, r.apply(HAL_OP_HYPOT, x, y)), r.apply(HAL_OP_ATAN2, y, x)};
}

Parts as_parts(const Complex& v) { return Parts{tensor(v.re), tensor(v.im)}; }

// (a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re), as c10::complex's product (and Vectorized's: each
// product rounded, then the sum). Operands may be numbers (a Python scalar's parts).
Complex product(Real& r, const Parts& a, const Parts& b) {
  return {r.sub(r.mul(a.re, b.re), r.mul(a.im, b.im)), r.add(r.mul(a.re, b.im), r.mul(a.im, b.re))};
}
Complex multiply(Real& r, const Complex& a, const Complex& b) { return product(r, as_parts(a), as_parts(b)); }

// a + b part by part, as c10::complex's sum.
Complex sum(Real& r, const Parts& a, const Parts& b) { return {r.add(a.re, b.re), r.add(a.im, b.im)}; }

// a / b as ATen's CPU divides complex numbers (complex_division.cpp), into new temporaries.
Complex quotient(Composer& c, const Parts& a, const Parts& b) {
  const Complex q{c.temp(), c.temp()};
  divide(c, as_parts(q), a, b);
  return q;
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
// overflowed cosh y; on the real axis the part with sinh y is 0, not 0 times sin(inf) (NaN). sin's zero there is
// cos x times y's (its sign that of the product, as csin's; sinc's sign of zero follows it), y itself where cos x
// is NaN.
Complex sin_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor cos_x = r.apply(HAL_OP_COS, x);
  const at::Tensor re = times_hyperbolic(r, r.apply(HAL_OP_SIN, x), y, false);
  const at::Tensor im = times_hyperbolic(r, cos_x, y, true);
  const at::Tensor signed_zero = r.mul(cos_x, y);
  const at::Tensor on_real_axis = r.select(r.test(HAL_OP_ISNAN, signed_zero), y, signed_zero);
  return {r.select(r.test(HAL_OP_EQ, x, 0.0), x, re), r.select(r.test(HAL_OP_EQ, y, 0.0), on_real_axis, im)};
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

at::Tensor magnitude(Real& r, const Operand& a) { return r.apply(HAL_OP_ABS, a); }
at::Tensor with_sign_of(Real& r, const Operand& magnitude, const Operand& sign) {
  return r.apply(HAL_OP_COPYSIGN, magnitude, sign);
}

// asin and acos of u + iv in the first quadrant (u, v >= 0: the absolute parts; the functions' symmetries give
// the other quadrants): the real parts of asin and acos, and the imaginary part of asin (acos's is its negative).
struct ArcsineInQuadrant {
  at::Tensor asin_re, acos_re, im;
};

// Hull, Fairgrieve and Tang's algorithm ("Implementing the complex arcsine and arccosine functions using exception
// handling", ACM TOMS 1997). With p = |z + 1| and m = |z - 1| (hypot: no overflow), A = (p + m) / 2 >= 1, B = u / A:
//   asin z = asin B + i log(A + sqrt(A^2 - 1)),   acos z = acos B - i log(A + sqrt(A^2 - 1)).
// The textbook log(iz + sqrt(1 - z^2)) cancels near the branch points +-1 and overflows in z^2; here the pieces
// that would cancel are rewritten as sums of positive terms:
//  - A - 1 near 0 (A < 1.5): with p - (u + 1) = v^2 / (p + u + 1) and m - (1 - u) = v^2 / (m + 1 - u) (u < 1) or
//    m + u - 1 (u >= 1, no cancellation), A - 1 is half their sum, and Im = log1p(A - 1 + sqrt((A - 1)(A + 1))).
//  - B near 1 (B > 0.6417, where asin and acos of B lose accuracy): the angle is atan(u / sqrt(A^2 - u^2)), with
//    A^2 - u^2 = (A + u)(A - u) and A - u = (v^2 / (p + u + 1) + m + 1 - u) / 2 for u <= 1, or
//    v^2 (1 / (p + u + 1) + 1 / (m + u - 1)) / 2 for u > 1.
// On the real axis (v = 0) the real functions are exact: asin / acos of min(u, 1) and acosh of max(u, 1). Past
// 1/eps (or with an infinite part), A = |z| and sqrt(A^2 - 1) = A to rounding: asin's angle is atan2(u, v), acos's
// atan2(v, u), and Im = log 2|z|, taken as log|z / 2| + log 4 so that |z| does not overflow. u = 0 gives asin's 0
// and acos's pi/2 even where v is NaN, as the C library.
ArcsineInQuadrant arcsine_in_quadrant(Real& r, const at::Tensor& u, const at::Tensor& v) {
  Composer& c = r.composer();
  const at::Tensor p = r.apply(HAL_OP_HYPOT, r.add(u, 1.0), v), m = r.apply(HAL_OP_HYPOT, r.sub(u, 1.0), v);
  const at::Tensor a = r.mul(r.add(p, m), 0.5), b = r.div(u, a);
  const at::Tensor v2 = r.mul(v, v), p_sum = r.add(p, r.add(u, 1.0));
  const at::Tensor one_minus_u = r.sub(1.0, u), u_minus_one = r.sub(u, 1.0);
  const at::Tensor p_excess = r.div(v2, p_sum);  // p - (u + 1)
  const at::Tensor inside = r.test(HAL_OP_LT, u, 1.0);

  const at::Tensor m_excess = r.select(inside, r.div(v2, r.add(m, one_minus_u)), r.add(m, u_minus_one));
  const at::Tensor a_minus_one = r.mul(r.add(p_excess, m_excess), 0.5);
  const at::Tensor root_a2_minus_one = r.apply(HAL_OP_SQRT, r.mul(a_minus_one, r.add(a, 1.0)));  // sqrt(A^2 - 1)
  const at::Tensor im_near_one = r.apply(HAL_OP_LOG1P, r.add(a_minus_one, root_a2_minus_one));
  const at::Tensor im_away = r.apply(HAL_OP_LOG, r.add(a, r.apply(HAL_OP_SQRT, r.sub(r.mul(a, a), 1.0))));
  at::Tensor im = r.select(r.test(HAL_OP_LT, a, 1.5), im_near_one, im_away);

  const at::Tensor a_plus_u = r.add(a, u);
  const at::Tensor a_minus_u_inside = r.add(p_excess, r.add(m, one_minus_u));  // 2 (A - u) for u <= 1
  const at::Tensor root_inside = r.apply(HAL_OP_SQRT, r.mul(r.mul(a_plus_u, 0.5), a_minus_u_inside));
  const at::Tensor outside_factor = r.mul(r.add(r.div(a_plus_u, p_sum), r.div(a_plus_u, r.add(m, u_minus_one))), 0.5);
  const at::Tensor root_outside = r.mul(v, r.apply(HAL_OP_SQRT, outside_factor));
  const at::Tensor root = r.select(r.test(HAL_OP_LE, u, 1.0), root_inside, root_outside);  // sqrt(A^2 - u^2)
  const at::Tensor near_one = r.test(HAL_OP_GT, b, 0.6417);
  at::Tensor asin_re = r.select(near_one, r.apply(HAL_OP_ATAN, r.div(u, root)), r.apply(HAL_OP_ASIN, b));
  at::Tensor acos_re = r.select(near_one, r.apply(HAL_OP_ATAN, r.div(root, u)), r.apply(HAL_OP_ACOS, b));

  const at::Tensor on_axis = r.test(HAL_OP_EQ, v, 0.0);
  const at::Tensor clamped = r.apply(HAL_OP_MINIMUM, u, 1.0);
  asin_re = r.select(on_axis, r.apply(HAL_OP_ASIN, clamped), asin_re);
  acos_re = r.select(on_axis, r.apply(HAL_OP_ACOS, clamped), acos_re);
  im = r.select(on_axis, r.apply(HAL_OP_ACOSH, r.apply(HAL_OP_MAXIMUM, u, 1.0)), im);

  // fmax: an infinite part makes z far even where the other part is NaN.
  const at::Tensor far = r.test(HAL_OP_GT, r.apply(HAL_OP_FMAX, u, v), reciprocal_epsilon(c));
  const at::Tensor log_2z = r.add(r.apply(HAL_OP_LOG, r.apply(HAL_OP_HYPOT, r.mul(u, 0.5), r.mul(v, 0.5))),
                                  in_real_dtype(c, std::log(4.0)));
  asin_re = r.select(far, r.apply(HAL_OP_ATAN2, u, v), asin_re);
  acos_re = r.select(far, r.apply(HAL_OP_ATAN2, v, u), acos_re);
  im = r.select(far, log_2z, im);

  const at::Tensor imaginary_axis = r.test(HAL_OP_EQ, u, 0.0);
  return {r.select(imaginary_axis, u, asin_re), r.select(imaginary_axis, kPi / 2, acos_re), im};
}

// asin(x + iy): the quadrant's parts with the signs of x and y (asin is odd and commutes with conjugation), so
// the branch cuts (|x| > 1 on the real axis) take their side from the sign of y's zero, as casin.
Complex asin_of(Real& r, const Operand& x, const Operand& y) {
  const ArcsineInQuadrant q = arcsine_in_quadrant(r, magnitude(r, x), magnitude(r, y));
  return {with_sign_of(r, q.asin_re, x), with_sign_of(r, q.im, y)};
}

// asinh z = i asin(-iz), and -iz = y - ix: asin's quadrant at (|y|, |x|) with its parts swapped.
Complex asinh_of(Real& r, const Operand& x, const Operand& y) {
  const ArcsineInQuadrant q = arcsine_in_quadrant(r, magnitude(r, y), magnitude(r, x));
  return {with_sign_of(r, q.im, x), with_sign_of(r, q.asin_re, y)};
}

// Re acos(x + iy): the quadrant's, reflected to pi - it for x < 0 (acos(-z) = pi - acos z).
at::Tensor acos_real_part(Real& r, const ArcsineInQuadrant& q, const Operand& x) {
  return r.select(r.test(HAL_OP_LT, x, 0.0), r.sub(kPi, q.acos_re), q.acos_re);
}

// acos(x + iy) = Re - i sign(y) Im (acos commutes with conjugation), as cacos.
Complex acos_of(Real& r, const Operand& x, const Operand& y) {
  const ArcsineInQuadrant q = arcsine_in_quadrant(r, magnitude(r, x), magnitude(r, y));
  return {acos_real_part(r, q, x), r.apply(HAL_OP_NEG, with_sign_of(r, q.im, y))};
}

// acosh z = +-i acos z, the sign that makes the real part non-negative: (Im, sign(y) Re acos z), as cacosh (so
// acosh(x +- 0i) for x < -1 is on the cut's side of the zero's sign: +-i pi).
Complex acosh_of(Real& r, const Operand& x, const Operand& y) {
  const ArcsineInQuadrant q = arcsine_in_quadrant(r, magnitude(r, x), magnitude(r, y));
  return {q.im, with_sign_of(r, acos_real_part(r, q, x), y)};
}

// atanh of u + iv in the first quadrant (u, v >= 0), by Kahan's formulas ("Branch cuts for complex elementary
// functions", 1987):
//   Re = log1p(4u / ((1 - u)^2 + v^2)) / 4,   Im = atan2(2v, (1 - u)(1 + u) - v^2) / 2,
// accurate where the textbook log((1 + z) / (1 - z)) / 2 cancels: 1 - u is exact near u = 1, and log1p keeps a
// small real part's relative accuracy. Where the log1p argument is 1 or more the real part is
// (log|1 + z| - log|1 - z|) / 2 instead (no cancellation there), which stays finite where (1 - u)^2 + v^2
// underflows (z = 1 + tiny i). Past 1/eps the squares could overflow: Re = u / |z|^2, taken as u / h / h / 4 with
// h = |z / 2| (0 where |z| is infinite), and Im = pi/2, NaN where v is NaN or where u is NaN beside a finite v, as
// catanh. u = 0 gives a real part of 0 even where v is NaN.
Complex atanh_in_quadrant(Real& r, const at::Tensor& u, const at::Tensor& v) {
  const at::Tensor one_minus_u = r.sub(1.0, u);
  const at::Tensor denominator = r.add(r.mul(one_minus_u, one_minus_u), r.mul(v, v));
  const at::Tensor ratio = r.div(r.mul(4.0, u), denominator);
  const at::Tensor by_log1p = r.mul(r.apply(HAL_OP_LOG1P, ratio), 0.25);
  const at::Tensor by_logs = r.mul(r.sub(r.apply(HAL_OP_LOG, r.apply(HAL_OP_HYPOT, r.add(1.0, u), v)),
                                         r.apply(HAL_OP_LOG, r.apply(HAL_OP_HYPOT, one_minus_u, v))),
                                   0.5);
  at::Tensor re = r.select(r.test(HAL_OP_LT, ratio, 1.0), by_log1p, by_logs);
  const at::Tensor one_minus_z2_re = r.sub(r.mul(one_minus_u, r.add(1.0, u)), r.mul(v, v));  // Re(1 - z^2)
  at::Tensor im = r.mul(r.apply(HAL_OP_ATAN2, r.mul(2.0, v), one_minus_z2_re), 0.5);

  const at::Tensor h = r.apply(HAL_OP_HYPOT, r.mul(u, 0.5), r.mul(v, 0.5));
  const at::Tensor re_far = r.select(r.test(HAL_OP_EQ, h, kInfinity), 0.0, r.mul(r.div(r.div(u, h), h), 0.25));
  const at::Tensor im_far = r.select(r.test(HAL_OP_ISNAN, v), v, r.select(r.test(HAL_OP_ISNAN, h), h, kPi / 2));
  const at::Tensor far = r.test(HAL_OP_GT, r.apply(HAL_OP_FMAX, u, v), reciprocal_epsilon(r.composer()));
  re = r.select(far, re_far, re);
  im = r.select(far, im_far, im);
  return {r.select(r.test(HAL_OP_EQ, u, 0.0), u, re), im};
}

// atanh(x + iy): the quadrant's parts with the signs of x and y (odd, commutes with conjugation), so the cuts
// (|x| > 1 on the real axis) take their side from the sign of y's zero, as catanh.
Complex atanh_of(Real& r, const Operand& x, const Operand& y) {
  const Complex q = atanh_in_quadrant(r, magnitude(r, x), magnitude(r, y));
  return {with_sign_of(r, q.re, x), with_sign_of(r, q.im, y)};
}

// atan z = -i atanh(iz), and iz = -y + ix: atanh's quadrant at (|y|, |x|) with its parts swapped.
Complex atan_of(Real& r, const Operand& x, const Operand& y) {
  const Complex q = atanh_in_quadrant(r, magnitude(r, y), magnitude(r, x));
  return {with_sign_of(r, q.im, x), with_sign_of(r, q.re, y)};
}

// expm1 z as c10's expm1 (which ATen calls for complex): expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y. The real
// part is e^x cos y - 1 without its cancellation: (e^x - 1) cos y - (1 - cos y), with expm1 for the first term
// and 1 - cos y = 2 sin^2(y/2) for the second, so small |z| keep their relative accuracy.
Complex expm1_of(Real& r, const Operand& x, const Operand& y) {
  const at::Tensor half_sine = r.apply(HAL_OP_SIN, r.mul(y, 0.5));
  const at::Tensor re = r.sub(r.mul(r.apply(HAL_OP_EXPM1, x), r.apply(HAL_OP_COS, y)),
                              r.mul(r.mul(2.0, half_sine), half_sine));
  return {re, r.mul(r.apply(HAL_OP_EXP, x), r.apply(HAL_OP_SIN, y))};
}

// exp2 z = exp(z ln 2), ln 2 in the real type multiplying each part, as ATen's kernel.
Complex exp2_of(Real& r, const Operand& x, const Operand& y) {
  const double ln_2 = in_real_dtype(r.composer(), std::log(2.0));
  return exp_of(r, r.mul(x, ln_2), r.mul(y, ln_2));
}

// sinc z = sin(pi z) / (pi z), 1 at z = 0, as ATen's kernel: pi z is a complex product (c10::pi of the complex type
// is pi + 0i, whose zero imaginary part sets the signs of zeros), then csin and complex division.
Complex sinc_of(Real& r, const Parts& z) {
  const double pi = in_real_dtype(r.composer(), kPi);
  const Complex pi_z = product(r, Parts{number(pi), number(0.0)}, z);
  const Complex q = quotient(r.composer(), as_parts(sin_of(r, pi_z.re, pi_z.im)), as_parts(pi_z));
  const Operand &x = z.re, &y = z.im;
  const at::Tensor zero = both_equal(r, x, 0.0, y, 0.0);
  return {r.select(zero, 1.0, q.re), r.select(zero, 0.0, q.im)};
}

// silu z = z / (1 + exp(-z)), as ATen's complex kernel: the sum a complex one (1 + 0i), then complex division.
Complex silu_of(Real& r, const Parts& z) {
  const Complex e = exp_of(r, r.apply(HAL_OP_NEG, z.re), r.apply(HAL_OP_NEG, z.im));
  return quotient(r.composer(), z, Parts{tensor(r.add(1.0, e.re)), tensor(r.add(0.0, e.im))});
}

// A bool tensor: whether any of the parts is NaN. A NaN found so far is carried through where into the next part,
// so one isnan answers for all with real kernels only.
at::Tensor any_nan(Real& r, std::initializer_list<Operand> parts) {
  at::Tensor found;
  for (const Operand& p : parts) {
    found = found.defined() ? r.test(HAL_OP_ISNAN, r.select(found, kNaN, p)) : r.test(HAL_OP_ISNAN, p);
  }
  return found;
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
  const double divisor = in_real_dtype(r.composer(), ln_base);
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

void compose_power(Composer& c, const Parts& dst, const Parts& base, const Parts& exponent) {
  Real r(c);
  const Complex log_base = log_of(r, base.re, base.im);
  const Complex p = product(r, exponent, as_parts(log_base));
  store(c, dst, exp_of(r, p.re, p.im));
}

std::optional<at::Tensor> power_of_number(const c10::Scalar& base, at::ScalarType common, const at::Tensor& exponent,
                                          const at::Tensor& out) {
  if (exponent.device().is_cpu()) return std::nullopt;
  if (common != at::kComplexFloat && common != at::kComplexDouble) return std::nullopt;
  const c10::complex<double> b = base.toComplexDouble();
  if (b == 0.0 || !std::isfinite(b.real()) || !std::isfinite(b.imag())) return std::nullopt;
  const auto w = parts_of(exponent, common);
  if (!w.has_value()) return std::nullopt;
  at::Tensor result = out;
  if (result.defined()) {
    if (result.scalar_type() != common || result.is_conj() || result.is_neg() || result.is_alias_of(exponent)) {
      return std::nullopt;
    }
    at::native::resize_output(result, exponent.sizes());
  } else {
    result = at::empty(exponent.sizes(), exponent.options().dtype(common));
  }
  if (result.numel() == 0) return result;
  const at::ScalarType real = c10::toRealValueType(common);
  // The base converted to the complex dtype, then its logarithm by std::log (the C library's clogf / clog).
  std::complex<double> log_base;
  if (real == at::kFloat) {
    log_base = std::log(std::complex<float>(static_cast<float>(b.real()), static_cast<float>(b.imag())));
  } else {
    log_base = std::log(std::complex<double>(b.real(), b.imag()));
  }
  Composer c(result.sizes(), real, result.options());
  Real r(c);
  // exponent * log base as cpow's complex product (each product rounded, then the sum), then its exponential.
  const Complex p = product(r, *w, Parts{number(log_base.real()), number(log_base.imag())});
  store(c, views_of(result), exp_of(r, p.re, p.im));
  if (!c.ok()) return std::nullopt;
  return result;
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
    case HAL_OP_EXP2: return ComplexFunction::Exp2;
    case HAL_OP_EXPM1: return ComplexFunction::Expm1;
    case HAL_OP_ASIN: return ComplexFunction::Asin;
    case HAL_OP_ACOS: return ComplexFunction::Acos;
    case HAL_OP_ATAN: return ComplexFunction::Atan;
    case HAL_OP_ASINH: return ComplexFunction::Asinh;
    case HAL_OP_ACOSH: return ComplexFunction::Acosh;
    case HAL_OP_ATANH: return ComplexFunction::Atanh;
    case HAL_OP_SILU: return ComplexFunction::Silu;
    case HAL_OP_SINC: return ComplexFunction::Sinc;
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
    case ComplexFunction::Exp2: return store(c, dst, exp2_of(r, x, y));
    case ComplexFunction::Expm1: return store(c, dst, expm1_of(r, x, y));
    case ComplexFunction::Asin: return store(c, dst, asin_of(r, x, y));
    case ComplexFunction::Acos: return store(c, dst, acos_of(r, x, y));
    case ComplexFunction::Atan: return store(c, dst, atan_of(r, x, y));
    case ComplexFunction::Asinh: return store(c, dst, asinh_of(r, x, y));
    case ComplexFunction::Acosh: return store(c, dst, acosh_of(r, x, y));
    case ComplexFunction::Atanh: return store(c, dst, atanh_of(r, x, y));
    case ComplexFunction::Silu: return store(c, dst, silu_of(r, z));
    case ComplexFunction::Sinc: return store(c, dst, sinc_of(r, z));
    case ComplexFunction::Sgn: return store(c, dst, sgn_of(r, x, y));
  }
}

void compose_angle(Composer& c, const at::Tensor& dst, const Parts& z) {
  c.binary(dst, HAL_OP_ATAN2, Form::BinaryFloat, z.im, z.re);
}

void compose_logaddexp(Composer& c, const Parts& dst, const Parts& a, const Parts& b) {
  Real r(c);
  // The operand with the smaller real part is `low` (b where the real parts tie, as ATen's ordering).
  const at::Tensor a_lower = r.test(HAL_OP_LT, a.re, b.re);
  const Complex low{r.select(a_lower, a.re, b.re), r.select(a_lower, a.im, b.im)};
  const Complex high{r.select(a_lower, b.re, a.re), r.select(a_lower, b.im, a.im)};
  // log(e^low + e^high) = log1p(e^(low - high)) + high: e^(low - high) has a modulus of at most 1, so nothing
  // overflows, and log1p keeps the sum accurate where e^(low - high) is small.
  const Complex e = exp_of(r, r.sub(low.re, high.re), r.sub(low.im, high.im));
  const Complex regular = sum(r, as_parts(log1p_of(r, c, e.re, e.im)), as_parts(high));
  // Both real parts the same infinity (low - high would be NaN): -inf gives `low` itself, +inf
  // log(e^low + e^high) directly, as ATen.
  const at::Tensor tie = r.test(HAL_OP_EQ, low.re, high.re);
  const at::Tensor infinite_tie = r.test(HAL_OP_EQ, r.select(tie, magnitude(r, low.re), 0.0), kInfinity);
  const Complex e_low = exp_of(r, low.re, low.im), e_high = exp_of(r, high.re, high.im);
  const Complex at_plus_infinity = log_of(r, r.add(e_low.re, e_high.re), r.add(e_low.im, e_high.im));
  const at::Tensor minus = r.test(HAL_OP_LT, low.re, 0.0);
  const Complex infinite{r.select(minus, low.re, at_plus_infinity.re), r.select(minus, low.im, at_plus_infinity.im)};
  // A NaN in any part makes both parts NaN.
  const at::Tensor nan = any_nan(r, {a.re, a.im, b.re, b.im});
  store(c, dst, {r.select(nan, kNaN, r.select(infinite_tie, infinite.re, regular.re)),
                 r.select(nan, kNaN, r.select(infinite_tie, infinite.im, regular.im))});
}

void compose_lerp(Composer& c, const Parts& dst, const Parts& start, const Parts& end, const Parts& weight) {
  Real r(c);
  const Parts difference = as_parts(Complex{r.sub(end.re, start.re), r.sub(end.im, start.im)});
  // |w|^2 < 1/4, as ATen compares it (no square root).
  const at::Tensor small = r.test(
      HAL_OP_LT, r.add(r.mul(weight.re, weight.re), r.mul(weight.im, weight.im)), 0.25);
  const Complex from_start = sum(r, as_parts(product(r, weight, difference)), start);
  const Parts weight_minus_one{tensor(r.sub(weight.re, 1.0)), weight.im};
  const Complex from_end = sum(r, as_parts(product(r, weight_minus_one, difference)), end);
  store(c, dst, {r.select(small, from_start.re, from_end.re), r.select(small, from_start.im, from_end.im)});
}

void compose_addcmul(Composer& c, const Parts& dst, const Parts& self, const Parts& t1, const Parts& t2,
                     const Parts& value) {
  Real r(c);
  const Complex scaled = product(r, value, t1);
  store(c, dst, sum(r, self, as_parts(product(r, as_parts(scaled), t2))));
}

void compose_addcdiv(Composer& c, const Parts& dst, const Parts& self, const Parts& t1, const Parts& t2,
                     const Parts& value) {
  Real r(c);
  const Complex scaled = product(r, value, t1);
  store(c, dst, sum(r, self, as_parts(quotient(c, as_parts(scaled), t2))));
}

// A NaN in the real part is carried into the imaginary one (where), so one isnan of the result answers for both
// parts with real kernels only (adapters may lack bool logical kernels).
void compose_isnan(Composer& c, const at::Tensor& dst, const Parts& z) {
  Real r(c);
  const at::Tensor carried = r.select(r.test(HAL_OP_ISNAN, z.re), std::numeric_limits<double>::quiet_NaN(), z.im);
  c.unary(dst, HAL_OP_ISNAN, carried, Form::UnaryAnyOut);
}

}  // namespace torch_hal::native::complex_by_real_view
