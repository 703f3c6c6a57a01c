// Activations and their backward ops: gelu, silu, leaky_relu, hardswish, hardsigmoid and threshold/gelu/sigmoid/
// tanh/silu/leaky_relu/hardswish/hardsigmoid backward (relu is in elementwise_arithmetic_ops.cpp).
#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

int64_t gelu_approximation(c10::string_view approximate) {
  if (approximate == "none") return 0;
  if (approximate == "tanh") return 1;
  TORCH_CHECK(false, "approximate argument must be either none or tanh.");
}

std::optional<at::Tensor> gelu(const at::Tensor& self, c10::string_view approximate) {
  return run_functional(HAL_OP_GELU, Form::Unary, {&self}, {gelu_approximation(approximate)});
}
bool gelu_(at::Tensor& self, c10::string_view approximate) {
  return run_into(HAL_OP_GELU, Form::Unary, self, {&self}, {gelu_approximation(approximate)});
}
bool gelu_out(const at::Tensor& self, c10::string_view approximate, at::Tensor& out) {
  return run_into(HAL_OP_GELU, Form::Unary, out, {&self}, {gelu_approximation(approximate)});
}
std::optional<at::Tensor> gelu_backward(const at::Tensor& grad, const at::Tensor& self, c10::string_view approximate) {
  return run_functional(HAL_OP_GELU_BACKWARD, Form::Binary, {&grad, &self}, {gelu_approximation(approximate)});
}
bool gelu_backward_out(const at::Tensor& grad, const at::Tensor& self, c10::string_view approximate,
                       at::Tensor& grad_input) {
  return run_into(HAL_OP_GELU_BACKWARD, Form::Binary, grad_input, {&grad, &self}, {gelu_approximation(approximate)});
}

std::optional<at::Tensor> leaky_relu(const at::Tensor& self, const c10::Scalar& slope) {
  return run_functional(HAL_OP_LEAKY_RELU, Form::Unary, {&self}, {slope});
}
bool leaky_relu_(at::Tensor& self, const c10::Scalar& slope) {
  return run_into(HAL_OP_LEAKY_RELU, Form::Unary, self, {&self}, {slope});
}
bool leaky_relu_out(const at::Tensor& self, const c10::Scalar& slope, at::Tensor& out) {
  return run_into(HAL_OP_LEAKY_RELU, Form::Unary, out, {&self}, {slope});
}
void check_leaky_relu_backward(const c10::Scalar& slope, bool self_is_result) {
  TORCH_CHECK(!self_is_result || slope.to<double>() >= 0.0,
              "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
              "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
              "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
              "in-place leakRelu backward calculation with negative slope");
}
std::optional<at::Tensor> leaky_relu_backward(const at::Tensor& grad, const at::Tensor& self,
                                              const c10::Scalar& slope, bool self_is_result) {
  check_leaky_relu_backward(slope, self_is_result);
  return run_functional(HAL_OP_LEAKY_RELU_BACKWARD, Form::Binary, {&grad, &self}, {slope});
}
bool leaky_relu_backward_out(const at::Tensor& grad, const at::Tensor& self, const c10::Scalar& slope,
                             bool self_is_result, at::Tensor& grad_input) {
  check_leaky_relu_backward(slope, self_is_result);
  return run_into(HAL_OP_LEAKY_RELU_BACKWARD, Form::Binary, grad_input, {&grad, &self}, {slope});
}

// threshold_backward: ATen promotes both operands (its iterator is the promoting one).
std::optional<at::Tensor> threshold_backward(const at::Tensor& grad, const at::Tensor& self, const c10::Scalar& threshold) {
  return run_functional(HAL_OP_THRESHOLD_BACKWARD, Form::Promoting, {&grad, &self}, {threshold});
}
bool threshold_backward_out(const at::Tensor& grad, const at::Tensor& self, const c10::Scalar& threshold,
                            at::Tensor& grad_input) {
  return run_into(HAL_OP_THRESHOLD_BACKWARD, Form::Promoting, grad_input, {&grad, &self}, {threshold});
}

// (grad_output, output-or-input) -> grad_input, through the binary iterator.
template <hal_op_t OP>
std::optional<at::Tensor> backward(const at::Tensor& grad, const at::Tensor& x) {
  return run_functional(OP, Form::Binary, {&grad, &x});
}
template <hal_op_t OP>
bool backward_out(const at::Tensor& grad, const at::Tensor& x, at::Tensor& grad_input) {
  return run_into(OP, Form::Binary, grad_input, {&grad, &x});
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE_FORMS(m, gelu, "gelu", HAL_OP_GELU, gelu);
  HAL_NATIVE(m, gelu_backward, "gelu_backward", launches(HAL_OP_GELU_BACKWARD), gelu_backward);
  HAL_NATIVE(m, gelu_backward_grad_input, "gelu_backward.grad_input", launches(HAL_OP_GELU_BACKWARD),
             gelu_backward_out);
  HAL_NATIVE_UNARY(m, silu, "silu", HAL_OP_SILU, Form::Unary);
  HAL_NATIVE(m, silu_backward, "silu_backward", launches(HAL_OP_SILU_BACKWARD), backward<HAL_OP_SILU_BACKWARD>);
  HAL_NATIVE(m, silu_backward_grad_input, "silu_backward.grad_input", launches(HAL_OP_SILU_BACKWARD),
             backward_out<HAL_OP_SILU_BACKWARD>);
  HAL_NATIVE_FORMS(m, leaky_relu, "leaky_relu", HAL_OP_LEAKY_RELU, leaky_relu);
  HAL_NATIVE(m, leaky_relu_backward, "leaky_relu_backward", launches(HAL_OP_LEAKY_RELU_BACKWARD), leaky_relu_backward);
  HAL_NATIVE(m, leaky_relu_backward_grad_input, "leaky_relu_backward.grad_input", launches(HAL_OP_LEAKY_RELU_BACKWARD),
             leaky_relu_backward_out);
  HAL_NATIVE(m, threshold_backward, "threshold_backward", launches(HAL_OP_THRESHOLD_BACKWARD), threshold_backward);
  HAL_NATIVE(m, threshold_backward_grad_input, "threshold_backward.grad_input", launches(HAL_OP_THRESHOLD_BACKWARD),
             threshold_backward_out);
  HAL_NATIVE(m, sigmoid_backward, "sigmoid_backward", launches(HAL_OP_SIGMOID_BACKWARD),
             backward<HAL_OP_SIGMOID_BACKWARD>);
  HAL_NATIVE(m, sigmoid_backward_grad_input, "sigmoid_backward.grad_input", launches(HAL_OP_SIGMOID_BACKWARD),
             backward_out<HAL_OP_SIGMOID_BACKWARD>);
  HAL_NATIVE_UNARY(m, hardswish, "hardswish", HAL_OP_HARDSWISH, Form::Unary);
  HAL_NATIVE(m, hardswish_backward, "hardswish_backward", launches(HAL_OP_HARDSWISH_BACKWARD),
             backward<HAL_OP_HARDSWISH_BACKWARD>);
  HAL_NATIVE(m, hardswish_backward_out, "hardswish_backward.out", launches(HAL_OP_HARDSWISH_BACKWARD),
             backward_out<HAL_OP_HARDSWISH_BACKWARD>);
  HAL_NATIVE_UNARY(m, hardsigmoid, "hardsigmoid", HAL_OP_HARDSIGMOID, Form::Unary);
  HAL_NATIVE(m, hardsigmoid_backward, "hardsigmoid_backward", launches(HAL_OP_HARDSIGMOID_BACKWARD),
             backward<HAL_OP_HARDSIGMOID_BACKWARD>);
  HAL_NATIVE(m, hardsigmoid_backward_grad_input, "hardsigmoid_backward.grad_input",
             launches(HAL_OP_HARDSIGMOID_BACKWARD), backward_out<HAL_OP_HARDSIGMOID_BACKWARD>);
  HAL_NATIVE(m, tanh_backward, "tanh_backward", launches(HAL_OP_TANH_BACKWARD), backward<HAL_OP_TANH_BACKWARD>);
  HAL_NATIVE(m, tanh_backward_grad_input, "tanh_backward.grad_input", launches(HAL_OP_TANH_BACKWARD),
             backward_out<HAL_OP_TANH_BACKWARD>);
}

}  // namespace
}  // namespace torch_hal::native
