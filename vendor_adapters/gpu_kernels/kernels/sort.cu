// SORT and TOPK: each line along the op's dimension sorted by one block in shared memory (a bitonic network
// over the line padded to a power of two), then written out in full (SORT) or its first k (TOPK).
//
// The network compares (value, position) pairs, so the order is total: equal values keep their positions'
// order (a stable sort, as sort(stable=True) asks; descending too), NaN ranks above every number (as ATen),
// padding below everything, and the result is the same on every run. Values are compared in float32 (f16,
// bf16 and f32 convert exactly), float64, int32 (integers of up to 4 bytes, bool: twice the line length of
// 8-byte keys) or int64. Lines longer than a block's shared memory holds (kMaxLine) take sort_long_lines.cu:
// runs of kMaxLine sorted by the same network, then merged.

#include <cstdint>
#include <type_traits>

#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/lines.cuh"
#include "kernels/op_call.h"
#include "kernels/sort_lines.cuh"
#include "kernels/sort_network.cuh"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {
namespace {

template <class K>
__global__ void __launch_bounds__(kSortThreads) sort_kernel(SortArgs a) {
  __shared__ K keys[kMaxLine<K>];
  __shared__ int32_t pos[kMaxLine<K>];
  const int32_t length = static_cast<int32_t>(a.lines.length[0]);
  const int32_t n = a.padded;
  for (int64_t m = blockIdx.x; m < a.lines.count; m += gridDim.x) {
    int64_t off[3];
    line_offsets(m, a.lines, off);
    for (int32_t i = threadIdx.x; i < n; i += kSortThreads) {
      keys[i] = i < length ? load_as<K>(a.in + (off[0] + i * a.lines.step[0]) * a.size, a.dtype) : K(0);
      pos[i] = i;
    }
    __syncthreads();
    bitonic_sort(keys, pos, n, length, a.descending, kSortThreads);
    for (int32_t i = threadIdx.x; i < a.written; i += kSortThreads) {
      store_from<K>(a.values + (off[1] + i * a.lines.step[1]) * a.size, a.dtype, keys[i]);
      *reinterpret_cast<int64_t*>(a.indices + (off[2] + i * a.lines.step[2]) * 8) = pos[i];
    }
    __syncthreads();  // the next line reuses keys and pos
  }
}

template <class K>
hal_status_t run(const OpCall& call, SortArgs& a) {
  if (a.lines.length[0] > kMaxLine<K>) return sort_long_lines<K>(call, a);
  int32_t n = 1;
  while (n < a.lines.length[0]) n <<= 1;
  a.padded = n;
  const unsigned blocks = static_cast<unsigned>(a.lines.count < (int64_t{1} << 20) ? a.lines.count : int64_t{1} << 20);
  return launch_kernel<sort_kernel<K>>(call.op == HAL_OP_TOPK ? "topk" : "sort", call.device, blocks, kSortThreads, 0,
                                       call.stream, a);
}

}  // namespace

hal_status_t launch_sort(const OpCall& call) {
  if ((call.op != HAL_OP_SORT && call.op != HAL_OP_TOPK) || !has_operands(call, 1, 2, 2)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& in = call.inputs[0];
  const hal_tensor_t& values = call.outputs[0];
  const hal_tensor_t& indices = call.outputs[1];
  if (is_scalar_operand(in) || is_absent(in) || is_absent(values) || is_absent(indices) || in.ndim > HAL_MAX_DIMS) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const DType dtype = dtype_of(in.dtype);
  if (dtype == DType::Unsupported || dtype_of(values.dtype) != dtype || dtype_of(indices.dtype) != DType::I64) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t dim = wrapped_dim(call.scalars[0], in.ndim);
  if (dim < 0) return fail(HAL_STATUS_INVALID_ARGUMENT, "SORT/TOPK: dim out of range");
  SortArgs a;
  const hal_tensor_t* const tensors[3] = {&in, &values, &indices};
  if (!lines_of(tensors, dim, a.lines)) return HAL_STATUS_NOT_SUPPORTED;
  // SORT writes whole lines; TOPK the first k (its outputs' length along dim), at most the line's.
  a.written = a.lines.length[1];
  if (a.lines.length[2] != a.written || a.written > a.lines.length[0] ||
      (call.op == HAL_OP_SORT && a.written != a.lines.length[0])) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (a.lines.count == 0 || a.written == 0) return HAL_STATUS_SUCCESS;
  a.in = element0(in);
  a.values = element0(values);
  a.indices = element0(indices);
  a.dtype = dtype;
  a.size = dtype_size(dtype);
  a.descending = scalar_true(call.scalars[1]);
  if (dtype == DType::F64) return run<double>(call, a);
  if (is_floating(dtype)) return run<float>(call, a);
  if (dtype == DType::I64) return run<int64_t>(call, a);
  return run<int32_t>(call, a);
}

}  // namespace hal_gpu
