// The scan family: CUMSUM, CUMPROD and LOGCUMSUMEXP (inclusive running sums, products and log-sum-exps along one
// dimension; log-sum-exps of complex values too) and CUMMAX / CUMMIN (the running extremum and its index), with
// scan_rules.cuh's combinations, which the SPIR-V kernels share. A Rule (ValueScan, ExtremumScan below) says what
// one element of a line is, how it is loaded and stored, and how two are combined; the kernels walk lines around it.
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
  Elements in, out, indices;  // element offsets from the args' own geometry (tensor_access.cuh); indices: CUMMAX/MIN
  Lines<3> lines;  // [0] input, [1] output, [2] indices (the output again for the value scans)
  int64_t length = 0;  // elements per line
  int64_t in_step = 0, out_step = 0, index_step = 0;  // strides along the scanned dimension
};

// The value scans: an element is the value itself, in the compute type T.
template <class T, ScanKind K>
struct ValueScan {
  using V = T;
  using C = ScanCombine<T, K>;
  __device__ static V load(const ScanArgs& a, const int64_t (&off)[3], int64_t i) {
    return load_as<T>(a.in.base + (off[0] + i * a.in_step) * a.in.size, a.in.dtype);
  }
  __device__ static void store(const ScanArgs& a, const int64_t (&off)[3], int64_t i, V v) {
    store_from<T>(a.out.base + (off[1] + i * a.out_step) * a.out.size, a.out.dtype, v);
  }
};

// LOGCUMSUMEXP of complex values: an element is a (real, imaginary) pair, the last dimension of the operands'
// real views (the host takes it out of their geometry), computed in T = double as PyTorch's CPU accumulates.
template <class T>
struct ComplexLogSumExpScan {
  using V = ComplexPair<T>;
  using C = ComplexLogSumExpCombine<T>;
  __device__ static V load(const ScanArgs& a, const int64_t (&off)[3], int64_t i) {
    const char* p = a.in.base + (off[0] + i * a.in_step) * a.in.size;
    return V{load_as<T>(p, a.in.dtype), load_as<T>(p + a.in.size, a.in.dtype)};
  }
  __device__ static void store(const ScanArgs& a, const int64_t (&off)[3], int64_t i, V v) {
    char* p = a.out.base + (off[1] + i * a.out_step) * a.out.size;
    store_from<T>(p, a.out.dtype, v.re);
    store_from<T>(p + a.out.size, a.out.dtype, v.im);
  }
};

// CUMMAX / CUMMIN: an element is a value with its index along the line.
template <class T, bool Max>
struct ExtremumScan {
  using V = Ranked<T>;
  using C = ExtremumCombine<T, Max>;
  __device__ static V load(const ScanArgs& a, const int64_t (&off)[3], int64_t i) {
    return V{load_as<T>(a.in.base + (off[0] + i * a.in_step) * a.in.size, a.in.dtype), i};
  }
  __device__ static void store(const ScanArgs& a, const int64_t (&off)[3], int64_t i, V v) {
    store_from<T>(a.out.base + (off[1] + i * a.out_step) * a.out.size, a.out.dtype, v.value);
    store_from<int64_t>(a.indices.base + (off[2] + i * a.index_step) * a.indices.size, a.indices.dtype, v.index);
  }
};

template <class Rule>
__global__ void __launch_bounds__(kThreads) scan_thread_per_line(ScanArgs a) {
  using C = typename Rule::C;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t m = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < a.lines.count; m += stride) {
    int64_t off[3];
    line_offsets(m, a.lines, off);
    typename Rule::V acc = C::identity();
    for (int64_t i = 0; i < a.length; ++i) {
      acc = C::of(acc, Rule::load(a, off, i));
      Rule::store(a, off, i, acc);
    }
  }
}

template <class Rule>
__global__ void __launch_bounds__(kThreads) scan_block_per_line(ScanArgs a) {
  using C = typename Rule::C;
  using V = typename Rule::V;
  __shared__ V totals[kThreads];
  const int tid = threadIdx.x;
  constexpr int64_t kChunk = static_cast<int64_t>(kThreads) * kItems;
  for (int64_t m = blockIdx.x; m < a.lines.count; m += gridDim.x) {
    int64_t off[3];
    line_offsets(m, a.lines, off);
    V carry = C::identity();
    for (int64_t base = 0; base < a.length; base += kChunk) {
      // This thread's kItems elements, scanned in order.
      V v[kItems];
      const int64_t first = base + static_cast<int64_t>(tid) * kItems;
      V run = C::identity();
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const int64_t i = first + j;
        if (i < a.length) run = C::of(run, Rule::load(a, off, i));
        v[j] = run;
      }
      // Inclusive scan of the threads' totals (Hillis-Steele; a fixed order of operations).
      totals[tid] = run;
      __syncthreads();
      for (int step = 1; step < kThreads; step <<= 1) {
        const V before = tid >= step ? totals[tid - step] : C::identity();
        __syncthreads();
        totals[tid] = C::of(before, totals[tid]);
        __syncthreads();
      }
      const V prefix = C::of(carry, tid > 0 ? totals[tid - 1] : C::identity());
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const int64_t i = first + j;
        if (i < a.length) Rule::store(a, off, i, C::of(prefix, v[j]));
      }
      carry = C::of(carry, totals[kThreads - 1]);
      __syncthreads();  // totals is rewritten by the next chunk
    }
  }
}

template <class Rule>
hal_status_t run(const OpCall& call, const ScanArgs& a, bool in_order = false) {
  // A block per line where the line is contiguous and long enough to fill one; a thread per line otherwise, and
  // for a combination that must be applied in order (in_order).
  const bool block_per_line = !in_order && a.in_step == 1 && a.length > 64;
  if (block_per_line) {
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(a.lines.count, int64_t{1} << 20));
    return launch_kernel<scan_block_per_line<Rule>>("scan", call.device, blocks, kThreads, 0, call.stream, a);
  }
  return launch_kernel<scan_thread_per_line<Rule>>("scan", call.device, grid_for(a.lines.count, kThreads, call.device),
                                                   kThreads, 0, call.stream, a);
}

template <class T>
hal_status_t dispatch(const OpCall& call, const ScanArgs& a) {
  switch (call.op) {
    case HAL_OP_CUMPROD: return run<ValueScan<T, ScanKind::Prod>>(call, a);
    case HAL_OP_CUMMAX: return run<ExtremumScan<T, true>>(call, a);
    case HAL_OP_CUMMIN: return run<ExtremumScan<T, false>>(call, a);
    case HAL_OP_LOGCUMSUMEXP:
      if constexpr (std::is_floating_point_v<T>) return run<ValueScan<T, ScanKind::LogSumExp>>(call, a);
      else return HAL_STATUS_NOT_SUPPORTED;
    default: return run<ValueScan<T, ScanKind::Sum>>(call, a);
  }
}

bool is_scan_op(hal_op_t op) {
  return op == HAL_OP_CUMSUM || op == HAL_OP_CUMPROD || op == HAL_OP_LOGCUMSUMEXP || op == HAL_OP_CUMMAX ||
         op == HAL_OP_CUMMIN;
}

}  // namespace

hal_status_t launch_scan(const OpCall& call) {
  const bool extremum = call.op == HAL_OP_CUMMAX || call.op == HAL_OP_CUMMIN;
  if (!is_scan_op(call.op) || !has_operands(call, 1, extremum ? 2 : 1, 1)) return HAL_STATUS_NOT_SUPPORTED;
  // LOGCUMSUMEXP's complex_pairs: the operands are complex tensors' real views, whose last dimension (2, stride 1)
  // holds each element's parts; the scan runs over the other dimensions.
  const bool complex_pairs = call.num_scalars > 1 && scalar_true(call.scalars[1]);
  if (complex_pairs && call.op != HAL_OP_LOGCUMSUMEXP) return HAL_STATUS_NOT_SUPPORTED;
  hal_tensor_t in = call.inputs[0];
  hal_tensor_t out = call.outputs[0];
  if (complex_pairs) {
    for (hal_tensor_t* t : {&in, &out}) {
      if (t->ndim < 1 || t->shape[t->ndim - 1] != 2 || t->strides[t->ndim - 1] != 1) return HAL_STATUS_NOT_SUPPORTED;
      t->ndim -= 1;
    }
  }
  const hal_tensor_t& indices = extremum ? call.outputs[1] : out;
  if (is_scalar_operand(in) || in.ndim < 0 || in.ndim > HAL_MAX_DIMS || !same_shape(in, out) ||
      !same_shape(in, indices)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const DType in_dtype = dtype_of(in.dtype), out_dtype = dtype_of(out.dtype);
  if (in_dtype == DType::Unsupported || out_dtype == DType::Unsupported) return HAL_STATUS_NOT_SUPPORTED;
  if (extremum && (dtype_of(indices.dtype) != DType::I64 || in_dtype != out_dtype)) return HAL_STATUS_NOT_SUPPORTED;
  if (call.op == HAL_OP_LOGCUMSUMEXP && !(is_floating(in_dtype) && is_floating(out_dtype))) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t dim = wrapped_dim(call.scalars[0], in.ndim);
  if (dim < 0) return fail(HAL_STATUS_INVALID_ARGUMENT, "scan: dim out of range");

  ScanArgs a;
  a.in.dtype = in_dtype;
  a.in.size = dtype_size(in_dtype);
  a.out.dtype = out_dtype;
  a.out.size = dtype_size(out_dtype);
  a.indices.dtype = dtype_of(indices.dtype);
  a.indices.size = dtype_size(a.indices.dtype);
  const hal_tensor_t* const tensors[3] = {&in, &out, &indices};
  if (!lines_of(tensors, dim, a.lines)) return HAL_STATUS_NOT_SUPPORTED;
  a.length = a.lines.length[0];
  a.in_step = a.lines.step[0];
  a.out_step = a.lines.step[1];
  a.index_step = a.lines.step[2];
  if (a.lines.count == 0 || a.length == 0) return HAL_STATUS_SUCCESS;
  a.in.base = element0(in);
  a.out.base = element0(out);
  a.indices.base = element0(indices);
  // Compute type as the reductions: float64 when either side is f64, float32 for floats, int64 otherwise (the
  // extremum scans compare in it too: every value of the dtype converts to it exactly). Log-sum-exps run in
  // float64 for every floating dtype, as PyTorch's CPU kernel accumulates them: their gradient subtracts running
  // values of large magnitude (logcumsumexp_backward), where float32's rounding of the running value shows.
  if (complex_pairs) return run<ComplexLogSumExpScan<double>>(call, a, /*in_order=*/true);
  if (in_dtype == DType::F64 || out_dtype == DType::F64 || call.op == HAL_OP_LOGCUMSUMEXP) {
    return dispatch<double>(call, a);
  }
  if (is_floating(in_dtype) || is_floating(out_dtype)) return dispatch<float>(call, a);
  return dispatch<int64_t>(call, a);
}

}  // namespace hal_gpu
