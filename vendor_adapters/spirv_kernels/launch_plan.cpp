#include "launch_plan.h"

#include "kernels/elementwise_params.h"
#include "kernels/tensor_operands.h"

namespace hal_spirv {
namespace {

constexpr const char* kElementwiseKernels[3] = {"unary_f32", "binary_f32", "ternary_f32"};

bool is_float32(const hal_tensor_t& t) { return hal_gpu::dtype_of(t.dtype) == hal_gpu::DType::F32; }

// A float32 tensor in memory (not a scalar operand, not absent), dense in row-major order.
bool is_dense_float32(const hal_tensor_t& t) {
  return t.data != nullptr && t.ndim >= 0 && is_float32(t) && hal_gpu::is_contiguous(t);
}

bool same_shape(const hal_tensor_t& a, const hal_tensor_t& b) {
  if (a.ndim != b.ndim) return false;
  for (int32_t d = 0; d < a.ndim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
  }
  return true;
}

// An elementwise op of the library's math on float32 (integer-only ops aside).
bool is_elementwise_float_op(hal_op_t op) {
  const hal_gpu::ew::OpInfo info = hal_gpu::ew::op_info(op);
  return info.arity > 0 && info.domain != hal_gpu::ew::Domain::IntOnly;
}

// kernels/elementwise.cl: (inputs..., out, n, op, s0, mode), one work-item an element.
hal_status_t plan_elementwise(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                              int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                              std::vector<Launch>* launches) {
  const hal_gpu::ew::OpInfo info = hal_gpu::ew::op_info(op);
  if (num_inputs != info.arity || num_outputs != 1 || num_scalars < info.own_scalars) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  if (!is_dense_float32(out)) return HAL_STATUS_NOT_SUPPORTED;
  for (int32_t i = 0; i < num_inputs; ++i) {
    // Scalar operands (data == NULL) and broadcast inputs are for later kernels: the fallback takes them.
    if (!is_dense_float32(inputs[i]) || !same_shape(inputs[i], out)) return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  const hal_gpu::ew::Params<float> params = hal_gpu::params_of<float>(op, scalars);
  Launch l;
  l.module = Module::Elementwise;
  l.kernel = kElementwiseKernels[info.arity - 1];
  for (int32_t i = 0; i < num_inputs; ++i) l.args.push_back(KernelArg::of_pointer(hal_gpu::element0(inputs[i])));
  l.args.push_back(KernelArg::of_pointer(hal_gpu::element0(out)));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(op)));
  l.args.push_back(KernelArg::of_value(params.s0));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(params.mode)));
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace

KernelArg KernelArg::of_pointer(const void* p) {
  KernelArg a;
  a.kind = Kind::Pointer;
  a.pointer = p;
  a.size = sizeof(void*);
  return a;
}

bool supports(hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors) {
  if (module_bytes(Module::Elementwise).size == 0) return false;
  if (!is_elementwise_float_op(op)) return false;
  for (int32_t i = 0; tensors != nullptr && i < num_tensors; ++i) {
    if (!is_float32(tensors[i])) return false;
  }
  return true;
}

hal_status_t plan(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                  int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, std::vector<Launch>* launches) {
  if (is_elementwise_float_op(op)) {
    return plan_elementwise(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
  }
  return HAL_STATUS_NOT_SUPPORTED;
}

}  // namespace hal_spirv
