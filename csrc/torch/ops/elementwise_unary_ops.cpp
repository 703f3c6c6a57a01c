// Unary elementwise ops: functional, in-place and out= forms over ATen's unary iterators (elementwise_forms.h).
#include <ATen/native/Resize.h>

#include <limits>

#include "ops/complex_by_real_view.h"
#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

void no_bool_negation(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
              "the `~` or `logical_not()` operator instead.");
}
// abs and the rounding ops have no bool kernel in ATen.
void no_bool(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "\"", "hal elementwise", "\" not implemented for 'Bool'");
}

// isnan: a bool tensor shaped like self.
std::optional<at::Tensor> isnan(const at::Tensor& self) {
  const at::Tensor out = at::empty_like(self, self.options().dtype(at::kBool));
  if (!run_into(HAL_OP_ISNAN, Form::UnaryAnyOut, out, {&self})) return std::nullopt;
  return out;
}

// isposinf / isneginf: x == +inf (-inf), the comparison kernel against an infinite scalar operand; integers and
// bool hold no infinity, so their result is all false (a fill).
template <bool Positive>
void check_infinity_test(const at::Tensor& self, const at::Tensor* out) {
  const char* name = Positive ? "isposinf" : "isneginf";
  TORCH_CHECK(!self.is_complex(), name, " does not support complex inputs.");
  if (out != nullptr) {
    TORCH_CHECK(out->scalar_type() == at::kBool, name, " does not support non-boolean outputs.");
  }
}
template <bool Positive>
bool infinity_test_into(const at::Tensor& self, const at::Tensor& out) {
  if (!at::isFloatingType(self.scalar_type())) {
    at::native::resize_output(const_cast<at::Tensor&>(out), self.sizes());
    out.zero_();
    return true;
  }
  const at::Tensor infinity = wrapped(Positive ? std::numeric_limits<double>::infinity()
                                               : -std::numeric_limits<double>::infinity());
  return run_into(HAL_OP_EQ, Form::Comparison, out, {&self, &infinity});
}
template <bool Positive>
std::optional<at::Tensor> infinity_test(const at::Tensor& self) {
  check_infinity_test<Positive>(self, nullptr);
  const at::Tensor out = at::empty(self.sizes(), self.options().dtype(at::kBool));
  if (!infinity_test_into<Positive>(self, out)) return std::nullopt;
  return out;
}
template <bool Positive>
bool infinity_test_out(const at::Tensor& self, at::Tensor& out) {
  check_infinity_test<Positive>(self, &out);
  return infinity_test_into<Positive>(self, out);
}

// logical_not.out of a complex self: of its magnitude, nonzero exactly where self is (NaN parts included), so
// that the real kernel decides it. A complex `out` keeps the other routes.
bool logical_not_out(const at::Tensor& self, at::Tensor& out) {
  if (self.is_complex() && !out.is_complex()) return unary_out<HAL_OP_LOGICAL_NOT, Form::UnaryAnyOut>(self.abs(), out);
  return unary_out<HAL_OP_LOGICAL_NOT, Form::UnaryAnyOut>(self, out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using enum Form;
  HAL_NATIVE_FORMS(m, neg, "neg", HAL_OP_NEG, unary, <HAL_OP_NEG, Unary, no_bool_negation>);
  HAL_NATIVE(m, abs_out, "abs.out", launches(HAL_OP_ABS),
             unary_out<HAL_OP_ABS, Unary, no_bool>);  // abs, abs_ are composites
  // conj_physical and conj_physical_ are composites over the out= form; real tensors take the other paths.
  HAL_NATIVE(m, conj_physical_out, "conj_physical.out", launches(HAL_OP_COPY, HAL_OP_NEG),
             complex_by_real_view::conj_physical_out);
  // (ATen's conj_physical_ calls its CPU/CUDA stub directly, which has no hal kernel.)
  HAL_NATIVE(m, conj_physical_, "conj_physical_", launches(HAL_OP_NEG), complex_by_real_view::conj_physical_);
  HAL_NATIVE_FORMS(m, floor, "floor", HAL_OP_FLOOR, unary, <HAL_OP_FLOOR, Unary, no_bool>);
  HAL_NATIVE_FORMS(m, ceil, "ceil", HAL_OP_CEIL, unary, <HAL_OP_CEIL, Unary, no_bool>);
  HAL_NATIVE_FORMS(m, round, "round", HAL_OP_ROUND, unary, <HAL_OP_ROUND, Unary, no_bool>);
  HAL_NATIVE_FORMS(m, trunc, "trunc", HAL_OP_TRUNC, unary, <HAL_OP_TRUNC, Unary, no_bool>);
  HAL_NATIVE_UNARY(m, sign, "sign", HAL_OP_SIGN, Unary);
  HAL_NATIVE_UNARY(m, bitwise_not, "bitwise_not", HAL_OP_BITWISE_NOT, Unary);
  HAL_NATIVE_UNARY(m, exp, "exp", HAL_OP_EXP, UnaryFloat);
  HAL_NATIVE_UNARY(m, exp2, "exp2", HAL_OP_EXP2, UnaryFloat);
  HAL_NATIVE_UNARY(m, expm1, "expm1", HAL_OP_EXPM1, UnaryFloat);
  HAL_NATIVE_UNARY(m, log, "log", HAL_OP_LOG, UnaryFloat);
  HAL_NATIVE_UNARY(m, log2, "log2", HAL_OP_LOG2, UnaryFloat);
  HAL_NATIVE_UNARY(m, log1p, "log1p", HAL_OP_LOG1P, UnaryFloat);
  HAL_NATIVE_UNARY(m, sqrt, "sqrt", HAL_OP_SQRT, UnaryFloat);
  HAL_NATIVE_UNARY(m, rsqrt, "rsqrt", HAL_OP_RSQRT, UnaryFloat);
  HAL_NATIVE_UNARY(m, sin, "sin", HAL_OP_SIN, UnaryFloat);
  HAL_NATIVE_UNARY(m, cos, "cos", HAL_OP_COS, UnaryFloat);
  HAL_NATIVE_UNARY(m, tanh, "tanh", HAL_OP_TANH, UnaryFloat);
  HAL_NATIVE_UNARY(m, sigmoid, "sigmoid", HAL_OP_SIGMOID, UnaryFloat);
  HAL_NATIVE_UNARY(m, reciprocal, "reciprocal", HAL_OP_RECIPROCAL, UnaryFloat);
  HAL_NATIVE_UNARY(m, erf, "erf", HAL_OP_ERF, UnaryFloat);
  // logical_not and logical_not_ are composites over the out= form, which writes any dtype.
  HAL_NATIVE(m, logical_not_out, "logical_not.out", launches(HAL_OP_LOGICAL_NOT),
             logical_not_out);
  HAL_NATIVE(m, isnan, "isnan", launches(HAL_OP_ISNAN), isnan);
  HAL_NATIVE(m, isposinf, "isposinf", launches(HAL_OP_EQ), infinity_test<true>);
  HAL_NATIVE(m, isposinf_out, "isposinf.out", launches(HAL_OP_EQ), infinity_test_out<true>);
  HAL_NATIVE(m, isneginf, "isneginf", launches(HAL_OP_EQ), infinity_test<false>);
  HAL_NATIVE(m, isneginf_out, "isneginf.out", launches(HAL_OP_EQ), infinity_test_out<false>);
}

}  // namespace
}  // namespace torch_hal::native
