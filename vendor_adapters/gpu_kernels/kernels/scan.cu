// The scan family: CUMSUM and CUMPROD, inclusive running sums and products along one dimension (scan_rules.cuh's
// combination, which the SPIR-V kernels share).
//
// The host splits the tensor into LINES along the scanned dimension (every other dimension indexes a line)
// and picks one of two kernel shapes:
//  - a block per line, when the scanned dimension is contiguous (cumsum over the last dimension, the
//    position ids of a mask): each thread scans kItems consecutive elements, the block combines the threads'
//    totals with a scan in shared memory, and a carry runs from chunk to chunk of the line;
//  - a thread per line otherwise (cumsum over an outer dimension): consecutive threads take consecutive
//    lines, so their loads are coalesced, and each walks its line in order.
// Both combine in a fixed order (no atomics): results are the same on every run. In place (y is x) is
// safe: every element is read and written by the same thread, its reads before its writes.

#include <algorithm>
#include <type_traits>

#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/lines.cuh"
#include "kernels/op_call.h"
#include "kernels/scan_rules.cuh"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;  // a power of two (the shared-memory scan's steps)
constexpr int kItems = 4;      // consecutive elements per thread in the block-per-line kernel

struct ScanArgs {
  Elements in, out;  // element offsets from the args' own geometry (tensor_access.cuh)
  Lines<2> lines;  // [0] input, [1] output (lines.cuh)
  int64_t length = 0;  // elements per line
  int64_t in_step = 0, out_step = 0;  // strides along the scanned dimension
};

template <class T, bool Prod>
using Combine = ScanCombine<T, Prod>;

template <class T, bool Prod>
__global__ void __launch_bounds__(kThreads) scan_thread_per_line(ScanArgs a) {
  using C = Combine<T, Prod>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t m = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < a.lines.count; m += stride) {
    int64_t off[2];
    line_offsets(m, a.lines, off);
    const int64_t in_off = off[0], out_off = off[1];
    T acc = C::identity();
    for (int64_t i = 0; i < a.length; ++i) {
      acc = C::of(acc, load_as<T>(a.in.base + (in_off + i * a.in_step) * a.in.size, a.in.dtype));
      store_from<T>(a.out.base + (out_off + i * a.out_step) * a.out.size, a.out.dtype, acc);
    }
  }
}

template <class T, bool Prod>
__global__ void __launch_bounds__(kThreads) scan_block_per_line(ScanArgs a) {
  using C = Combine<T, Prod>;
  __shared__ T totals[kThreads];
  const int tid = threadIdx.x;
  constexpr int64_t kChunk = static_cast<int64_t>(kThreads) * kItems;
  for (int64_t m = blockIdx.x; m < a.lines.count; m += gridDim.x) {
    int64_t off[2];
    line_offsets(m, a.lines, off);
    const int64_t in_off = off[0], out_off = off[1];
    T carry = C::identity();
    for (int64_t base = 0; base < a.length; base += kChunk) {
      // This thread's kItems elements, scanned in order.
      T v[kItems];
      const int64_t first = base + static_cast<int64_t>(tid) * kItems;
      T run = C::identity();
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const int64_t i = first + j;
        if (i < a.length) run = C::of(run, load_as<T>(a.in.base + (in_off + i * a.in_step) * a.in.size, a.in.dtype));
        v[j] = run;
      }
      // Inclusive scan of the threads' totals (Hillis-Steele; a fixed order of operations).
      totals[tid] = run;
      __syncthreads();
      for (int off = 1; off < kThreads; off <<= 1) {
        const T before = tid >= off ? totals[tid - off] : C::identity();
        __syncthreads();
        totals[tid] = C::of(before, totals[tid]);
        __syncthreads();
      }
      const T prefix = C::of(carry, tid > 0 ? totals[tid - 1] : C::identity());
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const int64_t i = first + j;
        if (i < a.length) store_from<T>(a.out.base + (out_off + i * a.out_step) * a.out.size, a.out.dtype, C::of(prefix, v[j]));
      }
      carry = C::of(carry, totals[kThreads - 1]);
      __syncthreads();  // totals is rewritten by the next chunk
    }
  }
}

template <class T, bool Prod>
hal_status_t run(const OpCall& call, const ScanArgs& a) {
  // A block per line where the line is contiguous and long enough to fill one; a thread per line otherwise.
  const bool block_per_line = a.in_step == 1 && a.length > 64;
  if (block_per_line) {
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(a.lines.count, int64_t{1} << 20));
    return launch_kernel<scan_block_per_line<T, Prod>>("cumsum/cumprod", call.device, blocks, kThreads, 0,
                                                        call.stream, a);
  }
  return launch_kernel<scan_thread_per_line<T, Prod>>("cumsum/cumprod", call.device,
                                                       grid_for(a.lines.count, kThreads, call.device), kThreads, 0,
                                                       call.stream, a);
}

template <class T>
hal_status_t dispatch(const OpCall& call, const ScanArgs& a) {
  return call.op == HAL_OP_CUMPROD ? run<T, true>(call, a) : run<T, false>(call, a);
}

}  // namespace

hal_status_t launch_scan(const OpCall& call) {
  if ((call.op != HAL_OP_CUMSUM && call.op != HAL_OP_CUMPROD) || !has_operands(call, 1, 1, 1)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t& in = call.inputs[0];
  const hal_tensor_t& out = call.outputs[0];
  if (is_scalar_operand(in) || in.ndim < 0 || in.ndim > HAL_MAX_DIMS || !same_shape(in, out)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const DType in_dtype = dtype_of(in.dtype), out_dtype = dtype_of(out.dtype);
  if (in_dtype == DType::Unsupported || out_dtype == DType::Unsupported) return HAL_STATUS_NOT_SUPPORTED;
  const int64_t dim = wrapped_dim(call.scalars[0], in.ndim);
  if (dim < 0) return fail(HAL_STATUS_INVALID_ARGUMENT, "CUMSUM/CUMPROD: dim out of range");

  ScanArgs a;
  a.in.dtype = in_dtype;
  a.in.size = dtype_size(in_dtype);
  a.out.dtype = out_dtype;
  a.out.size = dtype_size(out_dtype);
  const hal_tensor_t* const tensors[2] = {&in, &out};
  if (!lines_of(tensors, dim, a.lines)) return HAL_STATUS_NOT_SUPPORTED;
  a.length = a.lines.length[0];
  a.in_step = a.lines.step[0];
  a.out_step = a.lines.step[1];
  if (a.lines.count == 0 || a.length == 0) return HAL_STATUS_SUCCESS;
  a.in.base = element0(in);
  a.out.base = element0(out);
  // Compute type as the reductions: float64 when either side is f64, float32 for floats, int64 otherwise.
  if (in_dtype == DType::F64 || out_dtype == DType::F64) return dispatch<double>(call, a);
  if (is_floating(in_dtype) || is_floating(out_dtype)) return dispatch<float>(call, a);
  return dispatch<int64_t>(call, a);
}

}  // namespace hal_gpu
