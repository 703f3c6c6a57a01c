// add, sub, mul, div (with rounding modes), rsub and relu: the pattern every elementwise registration
// follows. Each op builds the
// TensorIterator that ATen's own structured kernel would build (same broadcasting, promotion and
// casting checks), then launches the adapter's kernel over it.
#include <ATen/native/BinaryOps.h>
#include <ATen/ops/result_type.h>
#include <torch/library.h>

#include "native/elementwise_launch.h"
#include "native/native_first.h"

namespace torch_hal::native {
namespace {

std::optional<at::Tensor> binary(hal_op_t op, const at::Tensor& self, const at::Tensor& other,
                                 std::initializer_list<c10::Scalar> scalars = {}) {
  at::Tensor out;
  auto iter = at::TensorIterator::binary_op(out, self, other);
  if (!launch_elementwise(iter, op, scalars)) return std::nullopt;
  return iter.output();
}

bool binary_into(hal_op_t op, const at::Tensor& out, const at::Tensor& self, const at::Tensor& other,
                 std::initializer_list<c10::Scalar> scalars = {}) {
  auto iter = at::TensorIterator::borrowing_binary_op(out, self, other);
  return launch_elementwise(iter, op, scalars);
}

// add / sub: out = self +- alpha * other
std::optional<at::Tensor> add_tensor(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary(HAL_OP_ADD, self, other, {alpha});
}
bool add_inplace(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary_into(HAL_OP_ADD, self, self, other, {alpha});
}
bool add_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary_into(HAL_OP_ADD, out, self, other, {alpha});
}
std::optional<at::Tensor> sub_tensor(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  at::native::sub_check(self, other);
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary(HAL_OP_SUB, self, other, {alpha});
}
bool sub_inplace(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  at::native::sub_check(self, other);
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary_into(HAL_OP_SUB, self, self, other, {alpha});
}

bool sub_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out) {
  at::native::sub_check(self, other);
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary_into(HAL_OP_SUB, out, self, other, {alpha});
}
// rsub(self, other, alpha) = other - alpha * self
std::optional<at::Tensor> rsub_tensor(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  at::native::sub_check(other, self);
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary(HAL_OP_SUB, other, self, {alpha});
}

std::optional<at::Tensor> mul_tensor(const at::Tensor& self, const at::Tensor& other) {
  return binary(HAL_OP_MUL, self, other);
}
bool mul_inplace(at::Tensor& self, const at::Tensor& other) { return binary_into(HAL_OP_MUL, self, self, other); }
bool mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary_into(HAL_OP_MUL, out, self, other);
}

// True division promotes integers to the default float type.
std::optional<at::Tensor> div_tensor(const at::Tensor& self, const at::Tensor& other) {
  at::Tensor out;
  auto iter = at::TensorIterator::binary_float_op(out, self, other);
  if (!launch_elementwise(iter, HAL_OP_DIV, {int64_t{0}})) return std::nullopt;
  return iter.output();
}
bool div_inplace(at::Tensor& self, const at::Tensor& other) {
  auto iter = at::TensorIterator::binary_float_op(self, self, other);
  return launch_elementwise(iter, HAL_OP_DIV, {int64_t{0}});
}

bool div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  at::Tensor target = out;
  auto iter = at::TensorIterator::binary_float_op(target, self, other);
  return launch_elementwise(iter, HAL_OP_DIV, {int64_t{0}});
}

// div with rounding_mode: None is true division; "trunc" and "floor" keep integer dtypes.
int64_t rounding_of(std::optional<c10::string_view> mode) {
  if (!mode.has_value()) return 0;
  if (*mode == "trunc") return 1;
  if (*mode == "floor") return 2;
  TORCH_CHECK(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}
bool div_mode_into(at::Tensor& out, const at::Tensor& self, const at::Tensor& other,
                   std::optional<c10::string_view> mode) {
  const int64_t rounding = rounding_of(mode);
  auto iter = rounding == 0 ? at::TensorIterator::binary_float_op(out, self, other)
                            : at::TensorIterator::binary_op(out, self, other);
  return launch_elementwise(iter, HAL_OP_DIV, {rounding});
}
std::optional<at::Tensor> div_mode(const at::Tensor& self, const at::Tensor& other,
                                   std::optional<c10::string_view> mode) {
  const int64_t rounding = rounding_of(mode);
  at::Tensor out;
  auto iter = rounding == 0 ? at::TensorIterator::binary_float_op(out, self, other)
                            : at::TensorIterator::binary_op(out, self, other);
  if (!launch_elementwise(iter, HAL_OP_DIV, {rounding})) return std::nullopt;
  return iter.output();
}
bool div_mode_inplace(at::Tensor& self, const at::Tensor& other, std::optional<c10::string_view> mode) {
  return div_mode_into(self, self, other, mode);
}
bool div_mode_out(const at::Tensor& self, const at::Tensor& other, std::optional<c10::string_view> mode,
                  at::Tensor& out) {
  at::Tensor target = out;
  return div_mode_into(target, self, other, mode);
}

std::optional<at::Tensor> relu(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  at::Tensor out;
  auto iter = at::TensorIterator::unary_op(out, self);
  if (!launch_elementwise(iter, HAL_OP_RELU)) return std::nullopt;
  return iter.output();
}
bool relu_inplace(at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  auto iter = at::TensorIterator::unary_op(self, self);
  return launch_elementwise(iter, HAL_OP_RELU);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, add_Tensor, "add.Tensor", add_tensor);
  HAL_NATIVE(m, add__Tensor, "add_.Tensor", add_inplace);
  HAL_NATIVE(m, add_out, "add.out", add_out);
  HAL_NATIVE(m, sub_Tensor, "sub.Tensor", sub_tensor);
  HAL_NATIVE(m, sub__Tensor, "sub_.Tensor", sub_inplace);
  HAL_NATIVE(m, sub_out, "sub.out", sub_out);
  HAL_NATIVE(m, rsub_Tensor, "rsub.Tensor", rsub_tensor);
  HAL_NATIVE(m, mul_Tensor, "mul.Tensor", mul_tensor);
  HAL_NATIVE(m, mul__Tensor, "mul_.Tensor", mul_inplace);
  HAL_NATIVE(m, mul_out, "mul.out", mul_out);
  HAL_NATIVE(m, div_Tensor, "div.Tensor", div_tensor);
  HAL_NATIVE(m, div__Tensor, "div_.Tensor", div_inplace);
  HAL_NATIVE(m, div_out, "div.out", div_out);
  HAL_NATIVE(m, div_Tensor_mode, "div.Tensor_mode", div_mode);
  HAL_NATIVE(m, div__Tensor_mode, "div_.Tensor_mode", div_mode_inplace);
  HAL_NATIVE(m, div_out_mode, "div.out_mode", div_mode_out);
  HAL_NATIVE(m, relu, "relu", relu);
  HAL_NATIVE(m, relu_, "relu_", relu_inplace);
}

}  // namespace
}  // namespace torch_hal::native
