// Binary elementwise ops beside add/sub/mul/div (elementwise_arithmetic_ops.cpp): pow, maximum/minimum, remainder,
// fmod, atan2, logical and bitwise ops, clamp_min/clamp_max with a tensor bound.
#include <ATen/ops/result_type.h>

#include "ops/complex_functions.h"
#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

// pow(Tensor, Scalar): ATen refuses negative integer powers of integers; the exponent takes part in
// type promotion as a Python number would.
void check_integer_power(const at::Tensor& base, const c10::Scalar& exp) {
  TORCH_CHECK(!(c10::isIntegralType(base.scalar_type(), true) && exp.isIntegral(true) && exp.toLong() < 0),
              "Integers to negative integer powers are not allowed.");
}
std::optional<at::Tensor> pow_tensor_scalar(const at::Tensor& base, const c10::Scalar& exp) {
  check_integer_power(base, exp);
  return binary_scalar<HAL_OP_POW, Form::Binary>(base, exp);
}
bool pow_tensor_scalar_(at::Tensor& base, const c10::Scalar& exp) {
  check_integer_power(base, exp);
  return binary_scalar_<HAL_OP_POW, Form::Binary>(base, exp);
}
bool pow_tensor_scalar_out(const at::Tensor& base, const c10::Scalar& exp, at::Tensor& out) {
  check_integer_power(base, exp);
  return binary_scalar_out<HAL_OP_POW, Form::Binary>(base, exp, out);
}
// A complex power of a single base value (ldexp's 2 ** other, number ** z: a 0-dim self, a Python number) takes the
// base's logarithm on the host as the CPU does (complex_functions.h): one value read back where the base is a 0-dim
// device tensor. Other complex powers (and those power_of_number does not take) keep the elementwise route (its exact
// exponent forms).
bool single_base_of_complex_power(const at::Tensor& base, const at::Tensor& exp) {
  return base.dim() == 0 && !exp.device().is_cpu() && (base.is_complex() || exp.is_complex());
}
std::optional<at::Tensor> pow_tensor_tensor(const at::Tensor& base, const at::Tensor& exp) {
  if (single_base_of_complex_power(base, exp)) {
    auto result = complex_by_real_view::power_of_number(base.item(), at::result_type(base, exp), exp, at::Tensor());
    if (result.has_value()) return result;
  }
  return binary<HAL_OP_POW, Form::Binary>(base, exp);
}
bool pow_tensor_tensor_out(const at::Tensor& base, const at::Tensor& exp, at::Tensor& out) {
  if (single_base_of_complex_power(base, exp) &&
      complex_by_real_view::power_of_number(base.item(), at::result_type(base, exp), exp, out).has_value()) {
    return true;
  }
  return binary_out<HAL_OP_POW, Form::Binary>(base, exp, out);
}
std::optional<at::Tensor> pow_scalar(const c10::Scalar& base, const at::Tensor& exp) {
  if (base.isComplex() || exp.is_complex()) {
    return complex_by_real_view::power_of_number(base, at::result_type(base, exp), exp, at::Tensor());
  }
  const at::Tensor b = wrapped(base);
  return run_functional(HAL_OP_POW, Form::Binary, {&b, &exp});
}
bool pow_scalar_out(const c10::Scalar& base, const at::Tensor& exp, at::Tensor& out) {
  if (base.isComplex() || exp.is_complex() || out.is_complex()) {
    return complex_by_real_view::power_of_number(base, at::result_type(base, exp), exp, out).has_value();
  }
  const at::Tensor b = wrapped(base);
  return run_into(HAL_OP_POW, Form::Binary, out, {&b, &exp});
}

// logical_and/or/xor.out: a complex operand is true where it is nonzero, which is where its magnitude is (hypot
// never rounds a nonzero pair to 0, and a NaN part makes it NaN, true as ATen's z != 0), so the kernels that
// take real operands decide it. A complex `out` (ATen writes 0 and 1 there) keeps the other routes.
at::Tensor truth_operand(const at::Tensor& t) { return t.is_complex() ? t.abs() : t; }
template <hal_op_t OP>
bool logical_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  if ((self.is_complex() || other.is_complex()) && !out.is_complex()) {
    return binary_out<OP, Form::Comparison>(truth_operand(self), truth_operand(other), out);
  }
  return binary_out<OP, Form::Comparison>(self, other, out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using enum Form;
  HAL_NATIVE(m, pow_Tensor_Tensor, "pow.Tensor_Tensor", launches(HAL_OP_POW), pow_tensor_tensor);
  HAL_NATIVE(m, pow__Tensor, "pow_.Tensor", launches(HAL_OP_POW), binary_<HAL_OP_POW, Binary>);
  HAL_NATIVE(m, pow_Tensor_Tensor_out, "pow.Tensor_Tensor_out", launches(HAL_OP_POW), pow_tensor_tensor_out);
  HAL_NATIVE(m, pow_Tensor_Scalar, "pow.Tensor_Scalar", launches(HAL_OP_POW), pow_tensor_scalar);
  HAL_NATIVE(m, pow__Scalar, "pow_.Scalar", launches(HAL_OP_POW), pow_tensor_scalar_);
  HAL_NATIVE(m, pow_Tensor_Scalar_out, "pow.Tensor_Scalar_out", launches(HAL_OP_POW), pow_tensor_scalar_out);
  HAL_NATIVE(m, pow_Scalar, "pow.Scalar", launches(HAL_OP_POW), pow_scalar);
  HAL_NATIVE(m, pow_Scalar_out, "pow.Scalar_out", launches(HAL_OP_POW), pow_scalar_out);
  HAL_NATIVE(m, maximum, "maximum", launches(HAL_OP_MAXIMUM), binary<HAL_OP_MAXIMUM, Binary>);
  HAL_NATIVE(m, maximum_out, "maximum.out", launches(HAL_OP_MAXIMUM), binary_out<HAL_OP_MAXIMUM, Binary>);
  HAL_NATIVE(m, minimum, "minimum", launches(HAL_OP_MINIMUM), binary<HAL_OP_MINIMUM, Binary>);
  HAL_NATIVE(m, minimum_out, "minimum.out", launches(HAL_OP_MINIMUM), binary_out<HAL_OP_MINIMUM, Binary>);
  HAL_NATIVE_BINARY_TENSOR(m, remainder, HAL_OP_REMAINDER, Binary);
  HAL_NATIVE_BINARY_TENSOR(m, fmod, HAL_OP_FMOD, Binary);
  HAL_NATIVE_BINARY(m, atan2, "atan2", HAL_OP_ATAN2, BinaryFloat);
  // logical_and/or/xor and their in-place forms are composites over out=, which compares into any dtype.
  HAL_NATIVE(m, logical_and_out, "logical_and.out", launches(HAL_OP_LOGICAL_AND),
             logical_out<HAL_OP_LOGICAL_AND>);
  HAL_NATIVE(m, logical_or_out, "logical_or.out", launches(HAL_OP_LOGICAL_OR),
             logical_out<HAL_OP_LOGICAL_OR>);
  HAL_NATIVE(m, logical_xor_out, "logical_xor.out", launches(HAL_OP_LOGICAL_XOR),
             logical_out<HAL_OP_LOGICAL_XOR>);
  HAL_NATIVE_BINARY_TENSOR(m, bitwise_and, HAL_OP_BITWISE_AND, Binary);
  HAL_NATIVE_BINARY_TENSOR(m, bitwise_or, HAL_OP_BITWISE_OR, Binary);
  HAL_NATIVE_BINARY_TENSOR(m, bitwise_xor, HAL_OP_BITWISE_XOR, Binary);
  // clamp_min / clamp_max with a tensor bound promote like clamp (ATen builds the same iterator).
  HAL_NATIVE_BINARY_TENSOR(m, clamp_min, HAL_OP_CLAMP_MIN, Promoting);
  HAL_NATIVE_BINARY_TENSOR(m, clamp_max, HAL_OP_CLAMP_MAX, Promoting);
}

}  // namespace
}  // namespace torch_hal::native
