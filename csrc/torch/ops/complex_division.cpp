// Complex division over real kernels, as ATen's CPU kernel computes it (c10::complex's operator/=, which
// follows numpy): Smith's algorithm, which divides by the larger part of the divisor first so that neither
// c*c + d*d nor the products overflow or underflow for large or small values, and gives a complex infinity
// or NaN for a zero divisor. For a / (c + di):
//   |c| >= |d|, both 0:  (a.re / |c|, a.im / |d|)
//   |c| >= |d|:          rat = d / c, scl = 1 / (c + d * rat), ((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl)
//   else:                rat = c / d, scl = 1 / (d + c * rat), ((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl)
#include <cmath>

#include "ops/complex_parts.h"

namespace torch_hal::native::complex_by_real_view {
namespace {

constexpr Form kBinary = Form::Binary;

// The divisor is a number: the branch and its coefficients are the same for every element, computed here in
// T as the CPU kernel computes them for each.
template <class T>
void divide_by_number(Composer& c, const Parts& dst, const Parts& a, T cr, T ci) {
  const T abs_c = std::abs(cr), abs_d = std::abs(ci);
  if (abs_c >= abs_d && abs_c == T(0) && abs_d == T(0)) {
    c.binary(dst.re.tensor, HAL_OP_DIV, Form::BinaryFloat, a.re, number(abs_c));
    c.binary(dst.im.tensor, HAL_OP_DIV, Form::BinaryFloat, a.im, number(abs_d));
    return;
  }
  const bool first = abs_c >= abs_d;
  const T rat = first ? ci / cr : cr / ci;
  const T scl = T(1) / (first ? cr + ci * rat : ci + cr * rat);
  const at::Tensor t = c.temp();
  // first: re = (a.re + a.im * rat) * scl, im = (a.im - a.re * rat) * scl
  // else:  re = (a.re * rat + a.im) * scl, im = (a.im * rat - a.re) * scl
  const Part& scaled_for_re = first ? a.im : a.re;
  const Part& added_for_re = first ? a.re : a.im;
  c.binary(t, HAL_OP_MUL, kBinary, scaled_for_re, number(rat));
  c.binary(dst.re.tensor, HAL_OP_ADD, kBinary, added_for_re, tensor(t));
  c.binary(dst.re.tensor, HAL_OP_MUL, kBinary, dst.re, number(scl));
  if (first) {
    c.binary(t, HAL_OP_MUL, kBinary, a.re, number(rat));
    c.binary(dst.im.tensor, HAL_OP_SUB, kBinary, a.im, tensor(t));
  } else {
    c.binary(t, HAL_OP_MUL, kBinary, a.im, number(rat));
    c.binary(dst.im.tensor, HAL_OP_SUB, kBinary, tensor(t), a.re);
  }
  c.binary(dst.im.tensor, HAL_OP_MUL, kBinary, dst.im, number(scl));
}

}  // namespace

void divide(Composer& c, const Parts& dst, const Parts& a, const Parts& b) {
  if (b.re.is_number() && b.im.is_number()) {
    if (c.real() == at::kFloat) {
      divide_by_number<float>(c, dst, a, static_cast<float>(b.re.value), static_cast<float>(b.im.value));
    } else {
      divide_by_number<double>(c, dst, a, b.re.value, b.im.value);
    }
    return;
  }
  // Per element, the branch is a bool tensor and each operand of the formulas is chosen with where, so both
  // branches are one sequence of launches. NaN parts fail |c| >= |d| and take the second branch, as on the CPU.
  const at::Tensor br = c.tensor_of(b.re), bi = c.tensor_of(b.im);
  const at::Tensor abs_c = c.temp(), abs_d = c.temp();
  c.unary(abs_c, HAL_OP_ABS, br);
  c.unary(abs_d, HAL_OP_ABS, bi);
  const at::Tensor first = c.temp(at::kBool);
  c.binary(first, HAL_OP_GE, Form::Comparison, tensor(abs_c), tensor(abs_d));

  // rat = q / p and scl = 1 / (p + q * rat), with (p, q) = first ? (c, d) : (d, c).
  const at::Tensor p = c.temp(), q = c.temp(), rat = c.temp(), scl = c.temp();
  c.where(p, first, tensor(br), tensor(bi));
  c.where(q, first, tensor(bi), tensor(br));
  c.binary(rat, HAL_OP_DIV, Form::BinaryFloat, tensor(q), tensor(p));
  c.binary(scl, HAL_OP_MUL, kBinary, tensor(q), tensor(rat));
  c.binary(scl, HAL_OP_ADD, kBinary, tensor(p), tensor(scl));
  c.binary(scl, HAL_OP_DIV, Form::BinaryFloat, number(1.0), tensor(scl));

  // re = (x + y * rat) * scl with (x, y) = first ? (a.re, a.im) : (a.im, a.re). (p, q are free again.)
  const at::Tensor& x = p;
  const at::Tensor& y = q;
  const at::Tensor t = c.temp();
  c.where(x, first, a.re, a.im);
  c.where(y, first, a.im, a.re);
  c.binary(t, HAL_OP_MUL, kBinary, tensor(y), tensor(rat));
  c.binary(dst.re.tensor, HAL_OP_ADD, kBinary, tensor(x), tensor(t));
  c.binary(dst.re.tensor, HAL_OP_MUL, kBinary, dst.re, tensor(scl));

  // im = (m + n * rat) * scl with (m, n) = first ? (a.im, -a.re) : (-a.re, a.im): a.im - a.re * rat and
  // a.im * rat - a.re, the same roundings as the CPU's.
  const at::Tensor negated = t;
  c.binary(negated, HAL_OP_MUL, kBinary, a.re, number(-1.0));  // exact, as neg (MUL takes any operand dtype)
  const at::Tensor& m = x;
  const at::Tensor& n = y;
  c.where(m, first, a.im, tensor(negated));
  c.where(n, first, tensor(negated), a.im);
  c.binary(n, HAL_OP_MUL, kBinary, tensor(n), tensor(rat));
  c.binary(dst.im.tensor, HAL_OP_ADD, kBinary, tensor(m), tensor(n));
  c.binary(dst.im.tensor, HAL_OP_MUL, kBinary, dst.im, tensor(scl));

  // A zero divisor (both parts 0, so |c| + |d| == 0; NaN parts fail it): (a.re / |c|, a.im / |d|).
  const at::Tensor& zero = first;  // its last use above was the wheres
  c.binary(rat, HAL_OP_ADD, kBinary, tensor(abs_c), tensor(abs_d));
  c.binary(zero, HAL_OP_EQ, Form::Comparison, tensor(rat), number(0.0));
  c.binary(x, HAL_OP_DIV, Form::BinaryFloat, a.re, tensor(abs_c));
  c.binary(y, HAL_OP_DIV, Form::BinaryFloat, a.im, tensor(abs_d));
  c.where(dst.re.tensor, zero, tensor(x), dst.re);
  c.where(dst.im.tensor, zero, tensor(y), dst.im);
}

}  // namespace torch_hal::native::complex_by_real_view
