// Plans of the softmax module (kernels/softmax.cl): SOFTMAX, LOG_SOFTMAX and their backward over any dim of
// contiguous floating tensors of one shape and dtype (the layouts the CUDA and HIP kernels take too); float64's
// kernel is float64.cl's.
#include "kernels/softmax_math.cuh"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

constexpr size_t kMaxGroup = 256;

bool is_dense_like(const hal_tensor_t& t, const hal_tensor_t& ref) {
  return t.data != nullptr && t.ndim >= 0 && hal_gpu::dtype_of(t.dtype) == hal_gpu::dtype_of(ref.dtype) &&
         hal_gpu::is_contiguous(t) && same_shape(t, ref);
}

// The kernel for x's dtype; null for dtypes it has none for.
const char* kernel_for(const hal_tensor_t& x) {
  static constexpr const char* kNames[4] = {"softmax_f32", "softmax_f16", "softmax_bf16", "softmax_f64"};
  const int type = floating_index(hal_gpu::dtype_of(x.dtype));
  return type < 0 ? nullptr : kNames[type];
}

}  // namespace

hal_status_t plan_softmax(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                          int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                          std::vector<Launch>* launches) {
  hal_gpu::SoftmaxKind kind;
  switch (op) {
    case HAL_OP_SOFTMAX: kind = hal_gpu::SoftmaxKind::Softmax; break;
    case HAL_OP_LOG_SOFTMAX: kind = hal_gpu::SoftmaxKind::LogSoftmax; break;
    case HAL_OP_SOFTMAX_BACKWARD: kind = hal_gpu::SoftmaxKind::SoftmaxBackward; break;
    case HAL_OP_LOG_SOFTMAX_BACKWARD: kind = hal_gpu::SoftmaxKind::LogSoftmaxBackward; break;
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
  const bool backward = op == HAL_OP_SOFTMAX_BACKWARD || op == HAL_OP_LOG_SOFTMAX_BACKWARD;
  if (num_inputs != (backward ? 2 : 1) || num_outputs != 1 || scalars == nullptr || num_scalars < 1) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t& x = inputs[0];
  const hal_tensor_t& y = outputs[0];
  const char* kernel = kernel_for(x);
  if (kernel == nullptr || !is_dense_like(x, x) || !is_dense_like(y, x) || (backward && !is_dense_like(inputs[1], x))) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int32_t ndim = x.ndim > 0 ? x.ndim : 1;  // a 0-dim tensor is one line of one element
  int64_t dim = scalar_as_int(scalars[0]);
  if (dim < 0) dim += ndim;
  if (dim < 0 || dim >= ndim) return HAL_STATUS_INVALID_ARGUMENT;
  int64_t outer = 1, size = 1, inner = 1;
  for (int32_t d = 0; d < x.ndim; ++d) {
    if (d < dim) outer *= x.shape[d];
    else if (d == dim) size = x.shape[d];
    else inner *= x.shape[d];
  }
  if (outer * size * inner == 0) return HAL_STATUS_SUCCESS;
  // A work-group per line (outer * inner of them), its work-items striding along the line.
  const size_t group = pow2_at_least(size, kMaxGroup);
  Launch l = launch_of(module_for(hal_gpu::dtype_of(x.dtype), Module::Softmax), kernel);
  add_pointer(&l, x, nullptr);
  add_pointer(&l, backward ? inputs[1] : x, nullptr);  // y (backward); unused by the forward
  add_pointer(&l, y, nullptr);
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(size)));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(inner)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(kind)));
  l.global[0] = static_cast<size_t>(outer * inner) * group;
  l.local[0] = group;
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
