// _softmax, _log_softmax and their backward: ATen's CUDA semantics (contiguous output, half_to_float for
// Half input) over the adapter's SOFTMAX family. Inputs are made contiguous first (a copy kernel when they
// are not), which the kernels require.
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

// Softmax of a 0-dim tensor is over its one element: it reaches the kernel as [1].
KernelArgs& add_operand(KernelArgs& args, const at::Tensor& t, bool output) {
  static constexpr int64_t kOne[] = {1};
  if (t.dim() == 0) return output ? args.output_as(t, kOne, kOne) : args.input_as(t, kOne, kOne);
  return output ? args.output(t) : args.input(t);
}

std::optional<at::Tensor> forward(hal_op_t op, const at::Tensor& self, int64_t dim, bool half_to_float) {
  const at::ScalarType in = self.scalar_type();
  // Other types (and half_to_float on non-Half input) go to ATen's kernel, which raises its own errors.
  if (!at::isFloatingType(in) || (half_to_float && in != at::kHalf)) return std::nullopt;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  const at::Tensor x = self.contiguous();
  at::Tensor y = at::empty(x.sizes(), x.options().dtype(half_to_float ? at::kFloat : in));
  if (x.numel() == 0) return y;
  KernelArgs args;
  add_operand(args, x, false);
  add_operand(args, y, true);
  args.scalar(wrapped);
  if (!launch(x.device().index(), op, args)) return std::nullopt;
  return y;
}

std::optional<at::Tensor> backward(hal_op_t op, const at::Tensor& grad_output, const at::Tensor& output, int64_t dim,
                                   at::ScalarType input_dtype) {
  const at::ScalarType grad_type = grad_output.scalar_type();
  if (grad_type != input_dtype) {
    TORCH_CHECK(grad_type == at::kFloat && input_dtype == at::kHalf,
                "expected input and grad types to match, or input to be at::Half and grad to be at::Float");
  }
  if (!at::isFloatingType(grad_type) || output.scalar_type() != grad_type) return std::nullopt;
  TORCH_CHECK(grad_output.sizes() == output.sizes(), "grad_output and output must have the same shape, got ",
              grad_output.sizes(), " and ", output.sizes());
  const int64_t wrapped = at::maybe_wrap_dim(dim, grad_output.dim());
  const at::Tensor grad_y = grad_output.contiguous();
  const at::Tensor y = output.contiguous();
  at::Tensor grad_x = at::empty(grad_y.sizes(), grad_y.options().dtype(input_dtype));
  if (grad_y.numel() == 0) return grad_x;
  KernelArgs args;
  add_operand(args, grad_y, false);
  add_operand(args, y, false);
  add_operand(args, grad_x, true);
  args.scalar(wrapped);
  if (!launch(grad_y.device().index(), op, args)) return std::nullopt;
  return grad_x;
}

std::optional<at::Tensor> softmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  return forward(HAL_OP_SOFTMAX, self, dim, half_to_float);
}
std::optional<at::Tensor> log_softmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  return forward(HAL_OP_LOG_SOFTMAX, self, dim, half_to_float);
}
std::optional<at::Tensor> softmax_backward(const at::Tensor& grad_output, const at::Tensor& output, int64_t dim,
                                           at::ScalarType input_dtype) {
  return backward(HAL_OP_SOFTMAX_BACKWARD, grad_output, output, dim, input_dtype);
}
std::optional<at::Tensor> log_softmax_backward(const at::Tensor& grad_output, const at::Tensor& output, int64_t dim,
                                               at::ScalarType input_dtype) {
  return backward(HAL_OP_LOG_SOFTMAX_BACKWARD, grad_output, output, dim, input_dtype);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _softmax, "_softmax", launches(HAL_OP_SOFTMAX), softmax);
  HAL_NATIVE(m, _log_softmax, "_log_softmax", launches(HAL_OP_LOG_SOFTMAX), log_softmax);
  HAL_NATIVE(m, _softmax_backward_data, "_softmax_backward_data", launches(HAL_OP_SOFTMAX_BACKWARD), softmax_backward);
  HAL_NATIVE(m, _log_softmax_backward_data, "_log_softmax_backward_data", launches(HAL_OP_LOG_SOFTMAX_BACKWARD),
             log_softmax_backward);
}

}  // namespace
}  // namespace torch_hal::native
