// Activations and their backward ops: gelu, silu, leaky_relu, hardswish, hardsigmoid, softplus, elu (selu and
// celu are elu), mish, log_sigmoid, logit, softshrink and hardshrink, and threshold/gelu/sigmoid/tanh/silu/
// leaky_relu/hardswish/hardsigmoid/softplus/elu/log_sigmoid/logit/hardtanh/shrink backward (relu is in
// elementwise_arithmetic_ops.cpp).
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

// softplus: (s) beta, threshold (its backward: backward_with_two below).
std::optional<at::Tensor> softplus(const at::Tensor& self, const c10::Scalar& beta, const c10::Scalar& threshold) {
  return run_functional(HAL_OP_SOFTPLUS, Form::Unary, {&self}, {beta, threshold});
}
bool softplus_out(const at::Tensor& self, const c10::Scalar& beta, const c10::Scalar& threshold, at::Tensor& out) {
  return run_into(HAL_OP_SOFTPLUS, Form::Unary, out, {&self}, {beta, threshold});
}

// (grad_output, input, two numbers) -> grad_input: softplus's (beta, threshold), hardtanh's (min, max).
template <hal_op_t OP>
std::optional<at::Tensor> backward_with_two(const at::Tensor& grad, const at::Tensor& self, const c10::Scalar& a,
                                            const c10::Scalar& b) {
  return run_functional(OP, Form::Binary, {&grad, &self}, {a, b});
}
template <hal_op_t OP>
bool backward_with_two_out(const at::Tensor& grad, const at::Tensor& self, const c10::Scalar& a, const c10::Scalar& b,
                           at::Tensor& grad_input) {
  return run_into(OP, Form::Binary, grad_input, {&grad, &self}, {a, b});
}

// elu (selu and celu reach it with their coefficients) and its backward, which reads the input or, after an
// in-place forward, the output (is_result).
std::optional<at::Tensor> elu(const at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
                              const c10::Scalar& input_scale) {
  return run_functional(HAL_OP_ELU, Form::Unary, {&self}, {alpha, scale, input_scale});
}
bool elu_(at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale, const c10::Scalar& input_scale) {
  return run_into(HAL_OP_ELU, Form::Unary, self, {&self}, {alpha, scale, input_scale});
}
bool elu_out(const at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
             const c10::Scalar& input_scale, at::Tensor& out) {
  return run_into(HAL_OP_ELU, Form::Unary, out, {&self}, {alpha, scale, input_scale});
}
void check_elu_backward(const c10::Scalar& alpha, bool is_result) {
  TORCH_CHECK(!is_result || alpha.to<double>() >= 0.0,
              "In-place elu backward calculation is triggered with a negative slope which is not supported. "
              "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
              "version instead.");
}
std::optional<at::Tensor> elu_backward(const at::Tensor& grad, const c10::Scalar& alpha, const c10::Scalar& scale,
                                       const c10::Scalar& input_scale, bool is_result, const at::Tensor& x) {
  check_elu_backward(alpha, is_result);
  return run_functional(HAL_OP_ELU_BACKWARD, Form::Binary, {&grad, &x},
                        {alpha, scale, input_scale, static_cast<int64_t>(is_result)});
}
bool elu_backward_out(const at::Tensor& grad, const c10::Scalar& alpha, const c10::Scalar& scale,
                      const c10::Scalar& input_scale, bool is_result, const at::Tensor& x, at::Tensor& grad_input) {
  check_elu_backward(alpha, is_result);
  return run_into(HAL_OP_ELU_BACKWARD, Form::Binary, grad_input, {&grad, &x},
                  {alpha, scale, input_scale, static_cast<int64_t>(is_result)});
}

// log_sigmoid_forward returns (output, buffer); the buffer is empty, as torch.cuda's: the backward recomputes
// exp(-|x|) from the input.
std::optional<std::tuple<at::Tensor, at::Tensor>> log_sigmoid_forward(const at::Tensor& self) {
  std::optional<at::Tensor> out = run_functional(HAL_OP_LOG_SIGMOID, Form::Unary, {&self});
  if (!out) return std::nullopt;
  return std::make_tuple(std::move(*out), at::empty({0}, self.options()));
}
std::optional<std::tuple<at::Tensor&, at::Tensor&>> log_sigmoid_forward_out(const at::Tensor& self, at::Tensor& out,
                                                                            at::Tensor& buffer) {
  if (!run_into(HAL_OP_LOG_SIGMOID, Form::Unary, out, {&self})) return std::nullopt;
  return std::tuple<at::Tensor&, at::Tensor&>(out, buffer);
}
std::optional<at::Tensor> log_sigmoid_backward(const at::Tensor& grad, const at::Tensor& self,
                                               const at::Tensor& /*buffer*/) {
  return run_functional(HAL_OP_LOG_SIGMOID_BACKWARD, Form::Binary, {&grad, &self});
}
bool log_sigmoid_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& /*buffer*/,
                              at::Tensor& grad_input) {
  return run_into(HAL_OP_LOG_SIGMOID_BACKWARD, Form::Binary, grad_input, {&grad, &self});
}

// logit: eps absent travels as -1 (no clamp).
double logit_eps(std::optional<double> eps) { return eps.value_or(-1.0); }
std::optional<at::Tensor> logit(const at::Tensor& self, std::optional<double> eps) {
  return run_functional(HAL_OP_LOGIT, Form::UnaryFloat, {&self}, {logit_eps(eps)});
}
bool logit_(at::Tensor& self, std::optional<double> eps) {
  return run_into(HAL_OP_LOGIT, Form::UnaryFloat, self, {&self}, {logit_eps(eps)});
}
bool logit_out(const at::Tensor& self, std::optional<double> eps, at::Tensor& out) {
  return run_into(HAL_OP_LOGIT, Form::UnaryFloat, out, {&self}, {logit_eps(eps)});
}
std::optional<at::Tensor> logit_backward(const at::Tensor& grad, const at::Tensor& self, std::optional<double> eps) {
  return run_functional(HAL_OP_LOGIT_BACKWARD, Form::Binary, {&grad, &self}, {logit_eps(eps)});
}
bool logit_backward_out(const at::Tensor& grad, const at::Tensor& self, std::optional<double> eps,
                        at::Tensor& grad_input) {
  return run_into(HAL_OP_LOGIT_BACKWARD, Form::Binary, grad_input, {&grad, &self}, {logit_eps(eps)});
}

// softshrink and hardshrink, and their one backward: (s) lambd. ATen refuses a negative lambd for softshrink.
template <hal_op_t OP>
void check_lambd(const c10::Scalar& lambd) {
  if constexpr (OP == HAL_OP_SOFTSHRINK) {
    TORCH_CHECK(lambd.to<double>() >= 0, "lambda must be greater or equal to 0, but found to be ", lambd.to<double>(),
                ".");
  }
}
template <hal_op_t OP>
std::optional<at::Tensor> shrink(const at::Tensor& self, const c10::Scalar& lambd) {
  check_lambd<OP>(lambd);
  return run_functional(OP, Form::Unary, {&self}, {lambd});
}
template <hal_op_t OP>
bool shrink_out(const at::Tensor& self, const c10::Scalar& lambd, at::Tensor& out) {
  check_lambd<OP>(lambd);
  return run_into(OP, Form::Unary, out, {&self}, {lambd});
}
std::optional<at::Tensor> shrink_backward(const at::Tensor& grad, const at::Tensor& self, const c10::Scalar& lambd) {
  return run_functional(HAL_OP_SHRINK_BACKWARD, Form::Binary, {&grad, &self}, {lambd});
}
bool shrink_backward_out(const at::Tensor& grad, const at::Tensor& self, const c10::Scalar& lambd,
                         at::Tensor& grad_input) {
  return run_into(HAL_OP_SHRINK_BACKWARD, Form::Binary, grad_input, {&grad, &self}, {lambd});
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
  HAL_NATIVE(m, softplus, "softplus", launches(HAL_OP_SOFTPLUS), softplus);
  HAL_NATIVE(m, softplus_out, "softplus.out", launches(HAL_OP_SOFTPLUS), softplus_out);
  HAL_NATIVE(m, softplus_backward, "softplus_backward", launches(HAL_OP_SOFTPLUS_BACKWARD),
             backward_with_two<HAL_OP_SOFTPLUS_BACKWARD>);
  HAL_NATIVE(m, softplus_backward_grad_input, "softplus_backward.grad_input", launches(HAL_OP_SOFTPLUS_BACKWARD),
             backward_with_two_out<HAL_OP_SOFTPLUS_BACKWARD>);
  HAL_NATIVE_FORMS(m, elu, "elu", HAL_OP_ELU, elu);
  HAL_NATIVE(m, elu_backward, "elu_backward", launches(HAL_OP_ELU_BACKWARD), elu_backward);
  HAL_NATIVE(m, elu_backward_grad_input, "elu_backward.grad_input", launches(HAL_OP_ELU_BACKWARD), elu_backward_out);
  HAL_NATIVE_UNARY(m, mish, "mish", HAL_OP_MISH, Form::Unary);
  HAL_NATIVE(m, log_sigmoid_forward, "log_sigmoid_forward", launches(HAL_OP_LOG_SIGMOID), log_sigmoid_forward);
  HAL_NATIVE(m, log_sigmoid_forward_output, "log_sigmoid_forward.output", launches(HAL_OP_LOG_SIGMOID),
             log_sigmoid_forward_out);
  HAL_NATIVE(m, log_sigmoid_backward, "log_sigmoid_backward", launches(HAL_OP_LOG_SIGMOID_BACKWARD),
             log_sigmoid_backward);
  HAL_NATIVE(m, log_sigmoid_backward_grad_input, "log_sigmoid_backward.grad_input",
             launches(HAL_OP_LOG_SIGMOID_BACKWARD), log_sigmoid_backward_out);
  HAL_NATIVE_FORMS(m, logit, "logit", HAL_OP_LOGIT, logit);
  HAL_NATIVE(m, logit_backward, "logit_backward", launches(HAL_OP_LOGIT_BACKWARD), logit_backward);
  HAL_NATIVE(m, logit_backward_grad_input, "logit_backward.grad_input", launches(HAL_OP_LOGIT_BACKWARD),
             logit_backward_out);
  // hardtanh's forward is clamp; its backward: (s) min, max.
  HAL_NATIVE(m, hardtanh_backward, "hardtanh_backward", launches(HAL_OP_HARDTANH_BACKWARD),
             backward_with_two<HAL_OP_HARDTANH_BACKWARD>);
  HAL_NATIVE(m, hardtanh_backward_grad_input, "hardtanh_backward.grad_input", launches(HAL_OP_HARDTANH_BACKWARD),
             backward_with_two_out<HAL_OP_HARDTANH_BACKWARD>);
  HAL_NATIVE(m, softshrink, "softshrink", launches(HAL_OP_SOFTSHRINK), shrink<HAL_OP_SOFTSHRINK>);
  HAL_NATIVE(m, softshrink_out, "softshrink.out", launches(HAL_OP_SOFTSHRINK), shrink_out<HAL_OP_SOFTSHRINK>);
  HAL_NATIVE(m, hardshrink, "hardshrink", launches(HAL_OP_HARDSHRINK), shrink<HAL_OP_HARDSHRINK>);
  HAL_NATIVE(m, hardshrink_out, "hardshrink.out", launches(HAL_OP_HARDSHRINK), shrink_out<HAL_OP_HARDSHRINK>);
  HAL_NATIVE(m, softshrink_backward, "softshrink_backward", launches(HAL_OP_SHRINK_BACKWARD), shrink_backward);
  HAL_NATIVE(m, softshrink_backward_grad_input, "softshrink_backward.grad_input", launches(HAL_OP_SHRINK_BACKWARD),
             shrink_backward_out);
  HAL_NATIVE(m, hardshrink_backward, "hardshrink_backward", launches(HAL_OP_SHRINK_BACKWARD), shrink_backward);
  HAL_NATIVE(m, hardshrink_backward_grad_input, "hardshrink_backward.grad_input", launches(HAL_OP_SHRINK_BACKWARD),
             shrink_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
