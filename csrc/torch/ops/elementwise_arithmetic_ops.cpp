// add, sub, mul, div (with rounding modes), rsub and relu, through the elementwise forms (the iterator that
// ATen's own structured kernel builds: same broadcasting, promotion and casting checks).
#include <ATen/native/BinaryOps.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/trunc.h>
#include <torch/library.h>

#include "ops/complex_by_real_view.h"
#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

// out = a +- alpha * b (`out` undefined: allocated, and stored in *allocated). As in ATen's structured
// kernel, alpha is checked against the iterator's common dtype once the iterator exists (no separate type
// promotion pass before it).
bool with_alpha(hal_op_t op, const at::Tensor& out, const at::Tensor& a, const at::Tensor& b,
                const c10::Scalar& alpha, at::Tensor* allocated = nullptr) {
  if (complex_by_real_view::involves_complex(&out, {&a, &b})) {
    auto result = complex_by_real_view::elementwise(op, Form::Binary, out, {&a, &b}, {alpha});
    if (result.has_value() && allocated) *allocated = std::move(*result);
    return result.has_value();
  }
  auto iter = make_iterator(Form::Binary, out, {&a, &b});
  at::native::alpha_check(iter.common_dtype(), alpha);
  if (!launch_elementwise(iter, op, {alpha}, Promotion::ToCommonDtype)) return false;
  if (allocated) *allocated = iter.output();
  return true;
}

template <hal_op_t OP>
std::optional<at::Tensor> alpha_functional(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if constexpr (OP == HAL_OP_SUB) at::native::sub_check(self, other);
  at::Tensor out;
  if (!with_alpha(OP, at::Tensor(), self, other, alpha, &out)) return std::nullopt;
  return out;
}
template <hal_op_t OP>
bool alpha_inplace(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if constexpr (OP == HAL_OP_SUB) at::native::sub_check(self, other);
  return with_alpha(OP, self, self, other, alpha);
}
template <hal_op_t OP>
bool alpha_out(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha, at::Tensor& out) {
  if constexpr (OP == HAL_OP_SUB) at::native::sub_check(self, other);
  return with_alpha(OP, out, self, other, alpha);  // the iterator resizes and writes `out` itself
}

// rsub(self, other, alpha) = other - alpha * self
std::optional<at::Tensor> rsub_tensor(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  return alpha_functional<HAL_OP_SUB>(other, self, alpha);
}

// div with rounding_mode: None is true division (integers promote to float); "trunc" and "floor" keep
// integer dtypes.
int64_t rounding_of(std::optional<c10::string_view> mode) {
  if (!mode.has_value()) return 0;
  if (*mode == "trunc") return 1;
  if (*mode == "floor") return 2;
  TORCH_CHECK(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}
Form div_form(int64_t rounding) { return rounding == 0 ? Form::BinaryFloat : Form::Binary; }

std::optional<at::Tensor> div_tensor(const at::Tensor& self, const at::Tensor& other) {
  return run_functional(HAL_OP_DIV, Form::BinaryFloat, {&self, &other}, {int64_t{0}});
}
bool div_inplace(at::Tensor& self, const at::Tensor& other) {
  return run_into(HAL_OP_DIV, Form::BinaryFloat, self, {&self, &other}, {int64_t{0}});
}
bool div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return run_into(HAL_OP_DIV, Form::BinaryFloat, out, {&self, &other}, {int64_t{0}});
}
// The CPU truncates a float16 / bfloat16 quotient after rounding it to that type, so a quotient just below an
// integer that rounds up to it truncates to that integer (found on the H200: 261.99 gives 262 there). Those types
// take the same order here: the true quotient in the type, then trunc.
bool rounds_before_truncating(const at::Tensor& self, const at::Tensor& other, int64_t rounding) {
  if (rounding != 1) return false;
  const at::ScalarType t = at::result_type(self, other);
  return t == at::kHalf || t == at::kBFloat16;
}

std::optional<at::Tensor> div_mode(const at::Tensor& self, const at::Tensor& other,
                                   std::optional<c10::string_view> mode) {
  const int64_t rounding = rounding_of(mode);
  if (rounds_before_truncating(self, other, rounding)) {
    std::optional<at::Tensor> quotient = div_tensor(self, other);
    if (quotient) quotient->trunc_();
    return quotient;
  }
  return run_functional(HAL_OP_DIV, div_form(rounding), {&self, &other}, {rounding});
}
bool div_mode_inplace(at::Tensor& self, const at::Tensor& other, std::optional<c10::string_view> mode) {
  const int64_t rounding = rounding_of(mode);
  if (rounds_before_truncating(self, other, rounding)) {
    if (!div_inplace(self, other)) return false;
    self.trunc_();
    return true;
  }
  return run_into(HAL_OP_DIV, div_form(rounding), self, {&self, &other}, {rounding});
}
bool div_mode_out(const at::Tensor& self, const at::Tensor& other, std::optional<c10::string_view> mode,
                  at::Tensor& out) {
  const int64_t rounding = rounding_of(mode);
  if (rounds_before_truncating(self, other, rounding) && out.scalar_type() == at::result_type(self, other)) {
    if (!div_out(self, other, out)) return false;
    out.trunc_();
    return true;
  }
  return run_into(HAL_OP_DIV, div_form(rounding), out, {&self, &other}, {rounding});
}

void check_not_bool(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, add_Tensor, "add.Tensor", launches(HAL_OP_ADD), alpha_functional<HAL_OP_ADD>);
  HAL_NATIVE(m, add__Tensor, "add_.Tensor", launches(HAL_OP_ADD), alpha_inplace<HAL_OP_ADD>);
  HAL_NATIVE(m, add_out, "add.out", launches(HAL_OP_ADD), alpha_out<HAL_OP_ADD>);
  HAL_NATIVE(m, sub_Tensor, "sub.Tensor", launches(HAL_OP_SUB), alpha_functional<HAL_OP_SUB>);
  HAL_NATIVE(m, sub__Tensor, "sub_.Tensor", launches(HAL_OP_SUB), alpha_inplace<HAL_OP_SUB>);
  HAL_NATIVE(m, sub_out, "sub.out", launches(HAL_OP_SUB), alpha_out<HAL_OP_SUB>);
  HAL_NATIVE(m, rsub_Tensor, "rsub.Tensor", launches(HAL_OP_SUB), rsub_tensor);
  HAL_NATIVE(m, mul_Tensor, "mul.Tensor", launches(HAL_OP_MUL), binary<HAL_OP_MUL, Form::Binary>);
  HAL_NATIVE(m, mul__Tensor, "mul_.Tensor", launches(HAL_OP_MUL), binary_<HAL_OP_MUL, Form::Binary>);
  HAL_NATIVE(m, mul_out, "mul.out", launches(HAL_OP_MUL), binary_out<HAL_OP_MUL, Form::Binary>);
  HAL_NATIVE(m, div_Tensor, "div.Tensor", launches(HAL_OP_DIV), div_tensor);
  HAL_NATIVE(m, div__Tensor, "div_.Tensor", launches(HAL_OP_DIV), div_inplace);
  HAL_NATIVE(m, div_out, "div.out", launches(HAL_OP_DIV), div_out);
  HAL_NATIVE(m, div_Tensor_mode, "div.Tensor_mode", launches(HAL_OP_DIV), div_mode);
  HAL_NATIVE(m, div__Tensor_mode, "div_.Tensor_mode", launches(HAL_OP_DIV), div_mode_inplace);
  HAL_NATIVE(m, div_out_mode, "div.out_mode", launches(HAL_OP_DIV), div_mode_out);
  HAL_NATIVE(m, relu, "relu", launches(HAL_OP_RELU), unary<HAL_OP_RELU, Form::Unary, check_not_bool>);
  HAL_NATIVE(m, relu_, "relu_", launches(HAL_OP_RELU), unary_<HAL_OP_RELU, Form::Unary, check_not_bool>);
}

}  // namespace
}  // namespace torch_hal::native
