// EMBEDDING_BACKWARD: grad_weight[V, D] = sum over n with indices[n] == v of grad[n, :], written in full: the
// entry points around the family's kernel body (embedding_accumulate.cuh, which the SPIR-V kernels compile too).
//
// The output (or, for f16/bf16 outputs, a float32 scratch of the same shape) is zeroed, every (n, d)
// element adds itself to its row with an atomic add in float32 (float64 for f64), and the scratch is then
// converted to the output's dtype. Accumulating half types in float32 keeps the sums as precise as
// ATen's. The order of the atomic adds varies, so float results may differ in the last bits from run to
// run (ATen's CUDA kernel sorts the indices instead).
//
// Rows equal to padding_idx receive nothing and stay zero. An index outside [0, V) (PyTorch raises on
// CPU, device-side asserts on CUDA) is skipped: nothing is ever written out of bounds.
#include <cstdint>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/embedding_accumulate.cuh"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"

namespace hal_gpu {
namespace {

template <class Acc>
__global__ void embedding_accumulate(Operand grad, int64_t grad_row_stride, int64_t grad_col_stride, Operand indices,
                                     int64_t index_stride, Acc* acc, int64_t N, int64_t D, int64_t V,
                                     int64_t padding_idx) {
  embedding_accumulate_body(
      [=](int64_t n) { return load_as<int64_t>(indices.base + n * index_stride * indices.elem_size, indices.dtype); },
      [=](int64_t n, int64_t d) {
        return load_as<Acc>(grad.base + (n * grad_row_stride + d * grad_col_stride) * grad.elem_size, grad.dtype);
      },
      acc, N, D, V, padding_idx);
}

template <class Acc>
__global__ void convert_rows(const Acc* acc, Operand out, int64_t n) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    store_from<Acc>(out.base + e * out.elem_size, out.dtype, acc[e]);
  }
}

template <class Acc>
hal_status_t run(const OpCall& call, int64_t N, int64_t D, int64_t V, int64_t padding_idx) {
  const hal_tensor_t& grad = call.inputs[0];
  const hal_tensor_t& indices = call.inputs[1];
  const hal_tensor_t& out = call.outputs[0];
  const Operand out_op = operand_of(out);
  const int64_t total = V * D;
  const bool direct = sizeof(Acc) == static_cast<size_t>(out_op.elem_size);  // f32 into f32, f64 into f64
  const size_t acc_bytes = static_cast<size_t>(total) * sizeof(Acc);
  StreamScratch scratch(call.device, call.stream, direct ? 0 : acc_bytes);
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "embedding backward: no scratch memory");
  Acc* acc = direct ? reinterpret_cast<Acc*>(out_op.base) : scratch.as<Acc>();
  if (hal_status_t s = memset_async(acc, 0, acc_bytes, call.stream, "embedding backward memset");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (N * D > 0) {
    if (hal_status_t s = launch_kernel<embedding_accumulate<Acc>>(
            "embedding_accumulate", call.device, grid_for(N * D, 256), 256, 0, call.stream, operand_of(grad),
            grad.strides[0], grad.strides[1], operand_of(indices), indices.strides[0], acc, N, D, V, padding_idx);
        s != HAL_STATUS_SUCCESS) {
      return s;
    }
  }
  if (direct) return HAL_STATUS_SUCCESS;
  return launch_kernel<convert_rows<Acc>>("embedding convert_rows", call.device, grid_for(total, 256), 256, 0,
                                          call.stream, acc, out_op, total);
}

}  // namespace

hal_status_t launch_embedding(const OpCall& call) {
  if (call.op != HAL_OP_EMBEDDING_BACKWARD) return fail(HAL_STATUS_NOT_SUPPORTED, "embedding: unknown op");
  if (call.num_inputs != 2 || call.num_outputs != 1 || !has_scalars(call, 1)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "embedding backward: unexpected operands");
  }
  const hal_tensor_t& grad = call.inputs[0];
  const hal_tensor_t& indices = call.inputs[1];
  const hal_tensor_t& out = call.outputs[0];
  if (grad.ndim != 2 || indices.ndim != 1 || out.ndim != 2 || grad.shape[0] != indices.shape[0] ||
      grad.shape[1] != out.shape[1]) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "embedding backward: expected grad [N, D], indices [N], grad_weight [V, D]");
  }
  const DType it = dtype_of(indices.dtype);
  const DType ot = dtype_of(out.dtype);
  if ((it != DType::I64 && it != DType::I32) || !is_floating(ot) || !is_floating(dtype_of(grad.dtype))) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "embedding backward: unsupported dtypes");
  }
  const int64_t N = grad.shape[0], D = grad.shape[1], V = out.shape[0];
  if (V * D == 0) return HAL_STATUS_SUCCESS;
  if (!is_contiguous(out)) return fail(HAL_STATUS_NOT_SUPPORTED, "embedding backward: grad_weight must be contiguous");
  const int64_t padding_idx = scalar_as_int(op_scalar(call, 0));
  return ot == DType::F64 ? run<double>(call, N, D, V, padding_idx) : run<float>(call, N, D, V, padding_idx);
}

}  // namespace hal_gpu
