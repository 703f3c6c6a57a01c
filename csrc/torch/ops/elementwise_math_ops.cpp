// Elementwise math beyond the training step's: inverse and hyperbolic trigonometry, log10, erfc, lgamma, digamma,
// polygamma, Hurwitz zeta, sinc, frac, entr and signbit of real numbers, angle and sgn (complex ones over their
// real views); logaddexp(2), xlogy, xlog1py, copysign, fmax/fmin, heaviside, hypot, floor_divide, the
// bit shifts, gcd and lcm. Each is one kernel of the
// library (adapter_ops.def) over ATen's iterator of the op's form (elementwise_forms.h); complex inputs and the
// dtypes a kernel lacks return "not handled", and take ATen's path.
#include <ATen/native/Resize.h>

#include <cmath>
#include <limits>

#include "ops/complex_by_real_view.h"
#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

void no_complex_signbit(const at::Tensor& self) {
  TORCH_CHECK(!self.is_complex(), "signbit is not implemented for complex tensors.");
}

// signbit: a bool tensor shaped like self; bool inputs have no sign bit (all false, as ATen).
bool signbit_into(const at::Tensor& self, const at::Tensor& out) {
  no_complex_signbit(self);
  if (self.scalar_type() == at::kBool) {
    at::native::resize_output(const_cast<at::Tensor&>(out), self.sizes());
    out.zero_();
    return true;
  }
  return run_into(HAL_OP_SIGNBIT, Form::UnaryAnyOut, out, {&self});
}
std::optional<at::Tensor> signbit(const at::Tensor& self) {
  no_complex_signbit(self);
  const at::Tensor out = at::empty(self.sizes(), self.options().dtype(at::kBool));
  if (!signbit_into(self, out)) return std::nullopt;
  return out;
}
bool signbit_out(const at::Tensor& self, at::Tensor& out) { return signbit_into(self, out); }

// nan_to_num: the replacements default to 0 and the dtype's finite limits, as ATen's kernel computes them
// (in the dtype itself, so float16's are +-65504); integer and bool tensors hold no NaN or infinity: a copy.
bool nan_to_num_into(const at::Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                     std::optional<double> neginf, at::Tensor& out) {
  if (self.is_complex()) return false;
  if (!at::isFloatingType(self.scalar_type())) {
    TORCH_CHECK(out.scalar_type() == self.scalar_type(), "nan_to_num: dtype of out: ", out.scalar_type(),
                " should be same as input: ", self.scalar_type());
    at::native::resize_output(out, self.sizes());
    out.copy_(self);
    return true;
  }
  double high = std::numeric_limits<double>::max();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, out.scalar_type(), "nan_to_num",
                                  [&] { high = static_cast<double>(std::numeric_limits<scalar_t>::max()); });
  return run_into(HAL_OP_NAN_TO_NUM, Form::Unary, out, {&self},
                  {nan.value_or(0.0), posinf.value_or(high), neginf.value_or(-high)});
}
std::optional<at::Tensor> nan_to_num(const at::Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                                     std::optional<double> neginf) {
  if (self.is_complex()) return std::nullopt;
  at::Tensor out = at::empty_like(self);
  if (!nan_to_num_into(self, nan, posinf, neginf, out)) return std::nullopt;
  return out;
}
bool nan_to_num_(at::Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                 std::optional<double> neginf) {
  if (!at::isFloatingType(self.scalar_type())) return !self.is_complex();  // nothing to replace
  return nan_to_num_into(self, nan, posinf, neginf, self);
}
bool nan_to_num_out(const at::Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf, at::Tensor& out) {
  return nan_to_num_into(self, nan, posinf, neginf, out);
}

// heaviside: ATen refuses operands of different dtypes before promoting.
void same_dtypes_for_heaviside(const at::Tensor& self, const at::Tensor& values) {
  TORCH_CHECK(!self.is_complex() && !values.is_complex(), "heaviside is not yet implemented for complex tensors.");
  TORCH_CHECK(self.dtype() == values.dtype(),
              "heaviside is not yet implemented for tensors with different dtypes.");
}
std::optional<at::Tensor> heaviside(const at::Tensor& self, const at::Tensor& values) {
  same_dtypes_for_heaviside(self, values);
  return binary<HAL_OP_HEAVISIDE, Form::Binary>(self, values);
}
bool heaviside_(at::Tensor& self, const at::Tensor& values) {
  same_dtypes_for_heaviside(self, values);
  return binary_<HAL_OP_HEAVISIDE, Form::Binary>(self, values);
}
bool heaviside_out(const at::Tensor& self, const at::Tensor& values, at::Tensor& out) {
  same_dtypes_for_heaviside(self, values);
  return binary_out<HAL_OP_HEAVISIDE, Form::Binary>(self, values, out);
}

// floor_divide: DIV with floor rounding, in the promoted dtype (integers stay integers).
constexpr int64_t kFloorRounding = 2;
std::optional<at::Tensor> floor_divide(const at::Tensor& self, const at::Tensor& other) {
  return run_functional(HAL_OP_DIV, Form::Binary, {&self, &other}, {kFloorRounding});
}
bool floor_divide_(at::Tensor& self, const at::Tensor& other) {
  return run_into(HAL_OP_DIV, Form::Binary, self, {&self, &other}, {kFloorRounding});
}
bool floor_divide_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return run_into(HAL_OP_DIV, Form::Binary, out, {&self, &other}, {kFloorRounding});
}

// sgn: of a real tensor its sign; of a complex one z / |z| (0 at 0), composed over the real views.
std::optional<at::Tensor> sgn(const at::Tensor& self) {
  if (self.is_complex()) return complex_by_real_view::sgn(self, at::Tensor());
  return unary<HAL_OP_SIGN, Form::Unary>(self);
}
bool sgn_(at::Tensor& self) {
  return self.is_complex() ? complex_by_real_view::sgn(self, self).has_value() : unary_<HAL_OP_SIGN, Form::Unary>(self);
}
bool sgn_out(const at::Tensor& self, at::Tensor& out) {
  return self.is_complex() ? complex_by_real_view::sgn(self, out).has_value()
                           : unary_out<HAL_OP_SIGN, Form::Unary>(self, out);
}
std::optional<at::Tensor> angle(const at::Tensor& self) {
  return unary<HAL_OP_ANGLE, Form::UnaryFloat>(self);  // complex: atan2 of the parts, over the real views
}
bool angle_out(const at::Tensor& self, at::Tensor& out) {
  return unary_out<HAL_OP_ANGLE, Form::UnaryFloat>(self, out);
}

// polygamma(0, x) is digamma; higher orders take n as the kernel's mode.
void check_polygamma_order(int64_t n) {
  TORCH_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
}
std::optional<at::Tensor> polygamma(int64_t n, const at::Tensor& self) {
  check_polygamma_order(n);
  if (n == 0) return run_functional(HAL_OP_DIGAMMA, Form::UnaryFloat, {&self});
  return run_functional(HAL_OP_POLYGAMMA, Form::UnaryFloat, {&self}, {n});
}
bool polygamma_out(int64_t n, const at::Tensor& self, at::Tensor& out) {
  check_polygamma_order(n);
  if (n == 0) return run_into(HAL_OP_DIGAMMA, Form::UnaryFloat, out, {&self});
  return run_into(HAL_OP_POLYGAMMA, Form::UnaryFloat, out, {&self}, {n});
}
bool polygamma_(at::Tensor& self, int64_t n) { return polygamma_out(n, self, self); }

// round(x, decimals): nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d for negative d, as ATen's kernel
// computes it: in float32 for float16/bfloat16 (its opmath), rounded once to the dtype.
bool round_decimals_into(const at::Tensor& self, int64_t decimals, at::Tensor& out) {
  if (!at::isFloatingType(self.scalar_type()) || out.scalar_type() != self.scalar_type()) return false;
  const at::ScalarType type = self.scalar_type();
  const at::Tensor x = type == at::kHalf || type == at::kBFloat16 ? self.to(at::kFloat) : self;
  const double ten_pow = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  const at::Tensor rounded =
      decimals < 0 ? x.div(ten_pow).round_().mul_(ten_pow) : x.mul(ten_pow).round_().div_(ten_pow);
  at::native::resize_output(out, self.sizes());
  out.copy_(rounded);
  return true;
}
std::optional<at::Tensor> round_decimals(const at::Tensor& self, int64_t decimals) {
  at::Tensor out = at::empty_like(self);
  if (!round_decimals_into(self, decimals, out)) return std::nullopt;
  return out;
}
bool round_decimals_(at::Tensor& self, int64_t decimals) { return round_decimals_into(self, decimals, self); }
bool round_decimals_out(const at::Tensor& self, int64_t decimals, at::Tensor& out) {
  return round_decimals_into(self, decimals, out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using enum Form;
  HAL_NATIVE_UNARY(m, asin, "asin", HAL_OP_ASIN, UnaryFloat);
  HAL_NATIVE_UNARY(m, acos, "acos", HAL_OP_ACOS, UnaryFloat);
  HAL_NATIVE_UNARY(m, atan, "atan", HAL_OP_ATAN, UnaryFloat);
  HAL_NATIVE_UNARY(m, sinh, "sinh", HAL_OP_SINH, UnaryFloat);
  HAL_NATIVE_UNARY(m, cosh, "cosh", HAL_OP_COSH, UnaryFloat);
  HAL_NATIVE_UNARY(m, tan, "tan", HAL_OP_TAN, UnaryFloat);
  HAL_NATIVE_UNARY(m, asinh, "asinh", HAL_OP_ASINH, UnaryFloat);
  HAL_NATIVE_UNARY(m, acosh, "acosh", HAL_OP_ACOSH, UnaryFloat);
  HAL_NATIVE_UNARY(m, atanh, "atanh", HAL_OP_ATANH, UnaryFloat);
  HAL_NATIVE_UNARY(m, log10, "log10", HAL_OP_LOG10, UnaryFloat);
  HAL_NATIVE_UNARY(m, erfc, "erfc", HAL_OP_ERFC, UnaryFloat);
  HAL_NATIVE_UNARY(m, lgamma, "lgamma", HAL_OP_LGAMMA, UnaryFloat);
  HAL_NATIVE_UNARY(m, digamma, "digamma", HAL_OP_DIGAMMA, UnaryFloat);
  HAL_NATIVE(m, polygamma, "polygamma", launches(HAL_OP_DIGAMMA, HAL_OP_POLYGAMMA), polygamma);
  HAL_NATIVE(m, polygamma_out, "polygamma.out", launches(HAL_OP_DIGAMMA, HAL_OP_POLYGAMMA), polygamma_out);
  HAL_NATIVE(m, polygamma_, "polygamma_", launches(HAL_OP_DIGAMMA, HAL_OP_POLYGAMMA), polygamma_);
  HAL_NATIVE(m, special_zeta, "special_zeta", launches(HAL_OP_ZETA), binary<HAL_OP_ZETA, BinaryFloat>);
  HAL_NATIVE(m, special_zeta_out, "special_zeta.out", launches(HAL_OP_ZETA), binary_out<HAL_OP_ZETA, BinaryFloat>);
  HAL_NATIVE_UNARY(m, sinc, "sinc", HAL_OP_SINC, UnaryFloat);
  HAL_NATIVE_UNARY(m, frac, "frac", HAL_OP_FRAC, Unary);
  HAL_NATIVE(m, special_entr, "special_entr", launches(HAL_OP_ENTR), unary<HAL_OP_ENTR, UnaryFloat>);
  HAL_NATIVE(m, special_entr_out, "special_entr.out", launches(HAL_OP_ENTR), unary_out<HAL_OP_ENTR, UnaryFloat>);
  HAL_NATIVE(m, angle, "angle", launches(HAL_OP_ANGLE), angle);
  HAL_NATIVE(m, angle_out, "angle.out", launches(HAL_OP_ANGLE), angle_out);
  HAL_NATIVE(m, signbit, "signbit", launches(HAL_OP_SIGNBIT), signbit);
  HAL_NATIVE(m, signbit_out, "signbit.out", launches(HAL_OP_SIGNBIT), signbit_out);
  HAL_NATIVE_FORMS(m, nan_to_num, "nan_to_num", HAL_OP_NAN_TO_NUM, nan_to_num);
  HAL_NATIVE_FORMS(m, sgn, "sgn", HAL_OP_SIGN, sgn);
  HAL_NATIVE(m, round_decimals, "round.decimals", launches(), round_decimals);
  HAL_NATIVE(m, round__decimals, "round_.decimals", launches(), round_decimals_);
  HAL_NATIVE(m, round_decimals_out, "round.decimals_out", launches(), round_decimals_out);

  HAL_NATIVE(m, logaddexp, "logaddexp", launches(HAL_OP_LOGADDEXP), binary<HAL_OP_LOGADDEXP, Binary>);
  HAL_NATIVE(m, logaddexp_out, "logaddexp.out", launches(HAL_OP_LOGADDEXP), binary_out<HAL_OP_LOGADDEXP, Binary>);
  HAL_NATIVE(m, logaddexp2, "logaddexp2", launches(HAL_OP_LOGADDEXP2), binary<HAL_OP_LOGADDEXP2, Binary>);
  HAL_NATIVE(m, logaddexp2_out, "logaddexp2.out", launches(HAL_OP_LOGADDEXP2),
             binary_out<HAL_OP_LOGADDEXP2, Binary>);
  HAL_NATIVE(m, xlogy_Tensor, "xlogy.Tensor", launches(HAL_OP_XLOGY), binary<HAL_OP_XLOGY, BinaryFloat>);
  HAL_NATIVE(m, xlogy__Tensor, "xlogy_.Tensor", launches(HAL_OP_XLOGY), binary_<HAL_OP_XLOGY, BinaryFloat>);
  HAL_NATIVE(m, xlogy_OutTensor, "xlogy.OutTensor", launches(HAL_OP_XLOGY), binary_out<HAL_OP_XLOGY, BinaryFloat>);
  HAL_NATIVE(m, special_xlog1py, "special_xlog1py", launches(HAL_OP_XLOG1PY), binary<HAL_OP_XLOG1PY, BinaryFloat>);
  HAL_NATIVE(m, special_xlog1py_out, "special_xlog1py.out", launches(HAL_OP_XLOG1PY),
             binary_out<HAL_OP_XLOG1PY, BinaryFloat>);
  HAL_NATIVE(m, copysign_Tensor, "copysign.Tensor", launches(HAL_OP_COPYSIGN), binary<HAL_OP_COPYSIGN, BinaryFloat>);
  HAL_NATIVE(m, copysign__Tensor, "copysign_.Tensor", launches(HAL_OP_COPYSIGN),
             binary_<HAL_OP_COPYSIGN, BinaryFloat>);
  HAL_NATIVE(m, copysign_out, "copysign.out", launches(HAL_OP_COPYSIGN), binary_out<HAL_OP_COPYSIGN, BinaryFloat>);
  HAL_NATIVE(m, fmax, "fmax", launches(HAL_OP_FMAX), binary<HAL_OP_FMAX, Binary>);
  HAL_NATIVE(m, fmax_out, "fmax.out", launches(HAL_OP_FMAX), binary_out<HAL_OP_FMAX, Binary>);
  HAL_NATIVE(m, fmin, "fmin", launches(HAL_OP_FMIN), binary<HAL_OP_FMIN, Binary>);
  HAL_NATIVE(m, fmin_out, "fmin.out", launches(HAL_OP_FMIN), binary_out<HAL_OP_FMIN, Binary>);
  HAL_NATIVE_FORMS(m, heaviside, "heaviside", HAL_OP_HEAVISIDE, heaviside);
  HAL_NATIVE_BINARY(m, hypot, "hypot", HAL_OP_HYPOT, Binary);  // integers: refused, as on the CPU
  HAL_NATIVE(m, floor_divide, "floor_divide", launches(HAL_OP_DIV), floor_divide);
  HAL_NATIVE(m, floor_divide__Tensor, "floor_divide_.Tensor", launches(HAL_OP_DIV), floor_divide_);
  HAL_NATIVE(m, floor_divide_out, "floor_divide.out", launches(HAL_OP_DIV), floor_divide_out);
  HAL_NATIVE_BINARY_TENSOR(m, bitwise_left_shift, HAL_OP_LEFT_SHIFT, Binary);
  HAL_NATIVE_BINARY_TENSOR(m, bitwise_right_shift, HAL_OP_RIGHT_SHIFT, Binary);
  HAL_NATIVE_BINARY(m, gcd, "gcd", HAL_OP_GCD, Binary);
  HAL_NATIVE_BINARY(m, lcm, "lcm", HAL_OP_LCM, Binary);
}

}  // namespace
}  // namespace torch_hal::native
