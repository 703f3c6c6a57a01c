// SOFTMAX, LOG_SOFTMAX and their backward over any dimension of a contiguous tensor.
//
// The tensor is seen as [outer, size, inner] around the softmax dimension. When inner == 1 (the last
// dimension, the common case) rows are contiguous: a warp per row for rows of up to 1024 elements, a
// block per row beyond. Otherwise one thread per (outer, inner) column walks the dimension with stride
// `inner`, adjacent threads reading adjacent addresses. Every variant is numerically stable (the row's
// maximum is subtracted before exp) and accumulates in float32 for f16/bf16 (float64 for f64).
//
// Storage types: input and output the same (f32, f16, bf16, f64), or ATen's half_to_float: f16/bf16 in,
// f32 out for the forward, and f32 gradients in, f16/bf16 grad_x out for the backward.
#include <cstdint>
#include <type_traits>

#include "kernels/family_support.cuh"
#include "kernels/softmax_math.cuh"
#include "kernels/kernel_launch.h"

namespace hal_gpu {
namespace {

using Kind = SoftmaxKind;

template <class A> struct Identity { __device__ A operator()(A v) const { return v; } };

// Rows of the last dimension, a warp each (blockDim.x == 32 * warps per block).
template <class In, class Out, class Acc>
__global__ void softmax_rows_warp(Kind kind, const In* a, const In* b, Out* out, int64_t rows, int64_t size) {
  const int64_t warps_per_block = blockDim.x >> 5;
  const int64_t lane = threadIdx.x & 31;
  for (int64_t row = blockIdx.x * warps_per_block + (threadIdx.x >> 5); row < rows;
       row += static_cast<int64_t>(gridDim.x) * warps_per_block) {
    const int64_t base = row * size;
    softmax_line<In, Out, Acc>(
        kind, a + base, b ? b + base : nullptr, out + base, size, 1, lane, 32,
        [](Acc v) { return warp_sum(v); }, [](Acc v) { return warp_max(v); });
  }
}

// Rows of the last dimension, a block each.
template <class In, class Out, class Acc>
__global__ void softmax_rows_block(Kind kind, const In* a, const In* b, Out* out, int64_t rows, int64_t size) {
  __shared__ Acc shared[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t base = row * size;
    softmax_line<In, Out, Acc>(
        kind, a + base, b ? b + base : nullptr, out + base, size, 1, threadIdx.x, blockDim.x,
        [&](Acc v) { return block_reduce<Acc, false>(v, shared); },
        [&](Acc v) { return block_reduce<Acc, true>(v, shared); });
  }
}

// Any other dimension: a thread per (outer, inner) column.
template <class In, class Out, class Acc>
__global__ void softmax_columns(Kind kind, const In* a, const In* b, Out* out, int64_t outer, int64_t size,
                                int64_t inner) {
  const int64_t columns = outer * inner;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < columns;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = c / inner, i = c - o * inner;
    const int64_t base = o * size * inner + i;
    softmax_line<In, Out, Acc>(kind, a + base, b ? b + base : nullptr, out + base, size, inner, 0, 1,
                               Identity<Acc>(), Identity<Acc>());
  }
}

template <class In, class Out>
hal_status_t run(const OpCall& call, Kind kind, int64_t outer, int64_t size, int64_t inner) {
  using Acc = typename std::conditional<std::is_same<In, double>::value || std::is_same<Out, double>::value, double,
                                        float>::type;
  const bool backward = kind == Kind::SoftmaxBackward || kind == Kind::LogSoftmaxBackward;
  const In* a = reinterpret_cast<const In*>(element0(call.inputs[0]));
  const In* b = backward ? reinterpret_cast<const In*>(element0(call.inputs[1])) : nullptr;
  Out* out = reinterpret_cast<Out*>(element0(call.outputs[0]));
  if (inner == 1 && size <= 1024) {
    constexpr int kThreads = 128;  // 4 rows per block
    return launch_kernel<softmax_rows_warp<In, Out, Acc>>("softmax_rows_warp", call.device,
                                                          grid_for(outer, kThreads / 32), kThreads, 0, call.stream,
                                                          kind, a, b, out, outer, size);
  }
  if (inner == 1) {
    const int threads = size >= 8192 ? 1024 : 512;
    return launch_kernel<softmax_rows_block<In, Out, Acc>>("softmax_rows_block", call.device, grid_for(outer, 1),
                                                           threads, 0, call.stream, kind, a, b, out, outer, size);
  }
  constexpr int kThreads = 256;
  return launch_kernel<softmax_columns<In, Out, Acc>>("softmax_columns", call.device, grid_for(outer * inner, kThreads),
                                                      kThreads, 0, call.stream, kind, a, b, out, outer, size, inner);
}

bool same_shape_contiguous(const hal_tensor_t& t, const hal_tensor_t& ref) {
  if (t.data == nullptr || t.ndim != ref.ndim || !is_contiguous(t)) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != ref.shape[d]) return false;
  }
  return true;
}

}  // namespace

hal_status_t launch_softmax(const OpCall& call) {
  Kind kind;
  switch (call.op) {
    case HAL_OP_SOFTMAX: kind = Kind::Softmax; break;
    case HAL_OP_LOG_SOFTMAX: kind = Kind::LogSoftmax; break;
    case HAL_OP_SOFTMAX_BACKWARD: kind = Kind::SoftmaxBackward; break;
    case HAL_OP_LOG_SOFTMAX_BACKWARD: kind = Kind::LogSoftmaxBackward; break;
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "softmax family: unknown op");
  }
  const bool backward = kind == Kind::SoftmaxBackward || kind == Kind::LogSoftmaxBackward;
  if (call.num_inputs != (backward ? 2 : 1) || call.num_outputs != 1 || !has_scalars(call, 1)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "softmax: unexpected operands");
  }
  const hal_tensor_t& x = call.inputs[0];
  const hal_tensor_t& y = call.outputs[0];
  if (x.ndim < 0 || x.ndim != y.ndim) return fail(HAL_STATUS_NOT_SUPPORTED, "softmax: shapes differ");
  const int64_t n = numel(x);
  if (n == 0) return HAL_STATUS_SUCCESS;
  if (!same_shape_contiguous(x, x) || !same_shape_contiguous(y, x) ||
      (backward && !same_shape_contiguous(call.inputs[1], x))) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "softmax: operands must be contiguous and of one shape");
  }
  int64_t dim = scalar_as_int(op_scalar(call, 0));
  const int ndim = x.ndim;
  if (dim < 0) dim += ndim > 0 ? ndim : 1;
  if (dim < 0 || dim >= (ndim > 0 ? ndim : 1)) return fail(HAL_STATUS_NOT_SUPPORTED, "softmax: dim out of range");
  int64_t outer = 1, size = 1, inner = 1;
  for (int d = 0; d < ndim; ++d) {
    if (d < dim) outer *= x.shape[d];
    else if (d == dim) size = x.shape[d];
    else inner *= x.shape[d];
  }

  const DType in = dtype_of(x.dtype), out = dtype_of(y.dtype);
  if (backward && dtype_of(call.inputs[1].dtype) != in) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "softmax backward: grad_y and y dtypes differ");
  }
  if (in == out) {
    switch (in) {
      case DType::F32: return run<float, float>(call, kind, outer, size, inner);
      case DType::F16: return run<__half, __half>(call, kind, outer, size, inner);
      case DType::BF16: return run<__nv_bfloat16, __nv_bfloat16>(call, kind, outer, size, inner);
      case DType::F64: return run<double, double>(call, kind, outer, size, inner);
      default: break;
    }
  } else if (!backward && out == DType::F32) {
    if (in == DType::F16) return run<__half, float>(call, kind, outer, size, inner);
    if (in == DType::BF16) return run<__nv_bfloat16, float>(call, kind, outer, size, inner);
  } else if (backward && in == DType::F32) {
    if (out == DType::F16) return run<float, __half>(call, kind, outer, size, inner);
    if (out == DType::BF16) return run<float, __nv_bfloat16>(call, kind, outer, size, inner);
  }
  return fail(HAL_STATUS_NOT_SUPPORTED, "softmax: unsupported dtypes");
}

}  // namespace hal_gpu
