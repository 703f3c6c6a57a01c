// Plans of the embedding module (kernels/embedding.cl): EMBEDDING_BACKWARD of float32 grad [N, D] (any strides)
// with int64 or int32 indices into a dense float32 grad_weight [V, D], zeroed first by the elementwise module's fill.
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {

hal_status_t plan_embedding_backward(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                                     int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                                     std::vector<Launch>* launches) {
  if (num_inputs != 2 || num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t &grad = inputs[0], &indices = inputs[1], &out = outputs[0];
  const hal_gpu::DType index_dtype = hal_gpu::dtype_of(indices.dtype);
  if (!is_float32_tensor(grad) || !is_float32_tensor(out) || indices.data == nullptr || grad.ndim != 2 ||
      indices.ndim != 1 || out.ndim != 2 || grad.shape[0] != indices.shape[0] || grad.shape[1] != out.shape[1] ||
      (index_dtype != hal_gpu::DType::I64 && index_dtype != hal_gpu::DType::I32)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t N = grad.shape[0], D = grad.shape[1], V = out.shape[0];
  if (V * D == 0) return HAL_STATUS_SUCCESS;
  if (!hal_gpu::is_contiguous(out)) return HAL_STATUS_NOT_SUPPORTED;
  Launch zero;
  if (!output_walk(Module::Elementwise, "fill_b32", out, V * D, &zero)) return HAL_STATUS_NOT_SUPPORTED;
  zero.args.push_back(KernelArg::of_value(uint64_t{0}));
  launches->push_back(zero);
  if (N * D == 0) return HAL_STATUS_SUCCESS;
  // Arguments: (grad, its row and column strides, indices, index_stride, index_is_64, grad_weight, N, D, V,
  // padding_idx); a work-item per element of grad.
  Launch l = launch_of(Module::Embedding, "embedding_backward_f32");
  add_pointer(&l, grad, nullptr);
  l.args.push_back(KernelArg::of_value(grad.strides[0]));
  l.args.push_back(KernelArg::of_value(grad.strides[1]));
  add_pointer(&l, indices, nullptr);
  l.args.push_back(KernelArg::of_value(indices.strides[0]));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(index_dtype == hal_gpu::DType::I64)));
  add_pointer(&l, out, nullptr);
  l.args.push_back(KernelArg::of_value(N));
  l.args.push_back(KernelArg::of_value(D));
  l.args.push_back(KernelArg::of_value(V));
  l.args.push_back(KernelArg::of_value(scalar_as_int(scalars[0])));
  l.global[0] = static_cast<size_t>(N * D);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
