// The reduction family: SUM, MEAN, PROD, AMAX, AMIN, ARGMAX, ARGMIN, VAR, STD, and ALL, ANY, VECTOR_NORM.
//
// The host splits the input's dimensions into kept ones (one output element per index) and reduced ones
// (the output's size is 1 there), sorts and merges each group, and launches one kernel shape for all
// layouts: a block of bx * by threads where x walks output elements and y walks the reduction, and
// grid.y splits long reductions over several blocks. The geometry picks the coalesced direction:
//  - reduction over contiguous memory (rows, full reductions): bx small, by large, so consecutive threads
//    read consecutive elements of one row;
//  - reduction over outer dimensions (a bias gradient: sum over dim 0 of [N, C]): bx = 32 consecutive
//    outputs, so a warp reads one contiguous stretch of a row of the input.
// Partial results of a split reduction go to the stream's scratch buffer (stream_scratch.h), which a
// second kernel combines in a fixed order (no atomics: results are deterministic).

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/op_call.h"
#include "kernels/reduce_rules.cuh"
#include "kernels/tensor_access.cuh"
#include "kernels/vector_norm.cuh"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;

struct Dims {
  int32_t n = 0;
  int64_t sizes[HAL_MAX_DIMS] = {};
  int64_t in_strides[HAL_MAX_DIMS] = {};
  int64_t out_strides[HAL_MAX_DIMS] = {};
};

struct ReduceArgs {
  Elements in, out;  // element offsets from the args' own geometry (tensor_access.cuh)
  Dims kept, reduced;
  int64_t outputs = 0;  // M: number of output elements
  int64_t length = 0;   // L: elements reduced into each
  double correction = 0;
  double ord = 2;  // VECTOR_NORM's order (the general-order reducer)
  int32_t op = 0;
};

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// ---- Reducers: identity, push one element, combine two partials, store the final value --------------

template <class T>
struct SumReducer {
  using Acc = T;
  __device__ static Acc identity() { return T(0); }
  __device__ static Acc push(Acc a, T v, int64_t, const ReduceArgs&) { return a + v; }
  __device__ static Acc combine(Acc a, Acc b) { return a + b; }
  __device__ static void store(char* p, const ReduceArgs& r, Acc a) {
    if (r.op == HAL_OP_MEAN) a = a * (T(1) / static_cast<T>(r.length));
    store_from<T>(p, r.out.dtype, a);
  }
};

template <class T>
struct ProdReducer {
  using Acc = T;
  __device__ static Acc identity() { return T(1); }
  __device__ static Acc push(Acc a, T v, int64_t, const ReduceArgs&) { return a * v; }
  __device__ static Acc combine(Acc a, Acc b) { return a * b; }
  __device__ static void store(char* p, const ReduceArgs& r, Acc a) { store_from<T>(p, r.out.dtype, a); }
};

// amax / amin: a NaN anywhere is the result.
template <class T, bool Max>
struct ExtremumReducer {
  using Acc = T;
  __device__ static Acc identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return Max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      return Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  __device__ static Acc combine(Acc a, Acc b) {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return Max ? (a > b ? a : b) : (a < b ? a : b);
  }
  __device__ static Acc push(Acc a, T v, int64_t, const ReduceArgs&) { return combine(a, v); }
  __device__ static void store(char* p, const ReduceArgs& r, Acc a) { store_from<T>(p, r.out.dtype, a); }
};

// argmax / argmin: the first index of the extreme value; a NaN beats every number (its first index wins)
// (reduce_rules.cuh, shared with the SPIR-V kernels).
template <class T, bool Max>
struct ArgReducer {
  using Acc = ValueIndex<T>;
  using Rule = ArgRule<T, Max>;
  __device__ static Acc identity() { return Rule::identity(); }
  __device__ static Acc combine(Acc a, Acc b) { return Rule::combine(a, b); }
  __device__ static Acc push(Acc a, T v, int64_t i, const ReduceArgs&) { return combine(a, Acc{v, i}); }
  __device__ static void store(char* p, const ReduceArgs& r, Acc a) {
    store_from<int64_t>(p, r.out.dtype, Rule::result(a));
  }
};

// var / std: Welford's running moments, merged with Chan's formula (reduce_rules.cuh).
template <class T>
struct WelfordReducer {
  using Acc = Moments<T>;
  using Rule = WelfordRule<T>;
  __device__ static Acc identity() { return Rule::identity(); }
  __device__ static Acc push(Acc a, T v, int64_t, const ReduceArgs&) { return Rule::push(a, v); }
  __device__ static Acc combine(Acc a, Acc b) { return Rule::combine(a, b); }
  __device__ static void store(char* p, const ReduceArgs& r, Acc a) {
    store_from<T>(p, r.out.dtype, Rule::result(a, static_cast<T>(r.correction), r.op == HAL_OP_STD));
  }
};

// all / any: whether every (some) element is nonzero; NaN is nonzero, as in ATen.
template <class T, bool All>
struct LogicalReducer {
  using Acc = int32_t;
  __device__ static Acc identity() { return All ? 1 : 0; }
  __device__ static Acc combine(Acc a, Acc b) { return All ? (a & b) : (a | b); }
  __device__ static Acc push(Acc a, T v, int64_t, const ReduceArgs&) { return combine(a, v != T(0) ? 1 : 0); }
  __device__ static void store(char* p, const ReduceArgs& r, Acc a) { store_from<int64_t>(p, r.out.dtype, a); }
};

// Vector norms (vector_norm.cuh), the order fixed at compile time.
template <class T, NormOrder O>
struct NormReducer {
  using Acc = T;
  using N = VectorNorm<T, O>;
  __device__ static Acc identity() { return N::identity(); }
  __device__ static Acc combine(Acc a, Acc b) { return N::combine(a, b); }
  __device__ static Acc push(Acc a, T v, int64_t, const ReduceArgs& r) { return N::push(a, v, static_cast<T>(r.ord)); }
  __device__ static void store(char* p, const ReduceArgs& r, Acc a) {
    store_from<T>(p, r.out.dtype, N::finish(a, static_cast<T>(r.ord)));
  }
};

// ---- Offsets ---------------------------------------------------------------------------------------

__device__ __forceinline__ void kept_offsets(int64_t m, const Dims& k, int64_t& in_off, int64_t& out_off) {
  in_off = 0;
  out_off = 0;
  for (int d = k.n - 1; d >= 0; --d) {
    const int64_t c = m % k.sizes[d];
    m /= k.sizes[d];
    in_off += c * k.in_strides[d];
    out_off += c * k.out_strides[d];
  }
}

// Offset of reduction index r: no division for one reduced dimension (the common case after merging),
// 32-bit divisions while indices fit.
__device__ __forceinline__ int64_t reduced_offset(int64_t r, const Dims& rd, bool narrow) {
  if (rd.n == 1) return r * rd.in_strides[0];
  int64_t off = 0;
  if (narrow) {
    uint32_t i = static_cast<uint32_t>(r);
    for (int d = rd.n - 1; d >= 0; --d) {
      const uint32_t size = static_cast<uint32_t>(rd.sizes[d]);
      off += static_cast<int64_t>(i % size) * rd.in_strides[d];
      i /= size;
    }
  } else {
    for (int d = rd.n - 1; d >= 0; --d) {
      off += (r % rd.sizes[d]) * rd.in_strides[d];
      r /= rd.sizes[d];
    }
  }
  return off;
}

// ---- Kernels ---------------------------------------------------------------------------------------

template <class R, class T>
__global__ void __launch_bounds__(kThreads) reduce_kernel(ReduceArgs a, typename R::Acc* partials) {
  using Acc = typename R::Acc;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int bx = blockDim.x, by = blockDim.y;
  const int64_t m = static_cast<int64_t>(blockIdx.x) * bx + tx;
  Acc acc = R::identity();
  int64_t in_off = 0, out_off = 0;
  if (m < a.outputs) {
    kept_offsets(m, a.kept, in_off, out_off);
    const char* base = a.in.base + in_off * a.in.size;
    const int64_t parts = static_cast<int64_t>(gridDim.y) * by;
    const bool narrow = a.length < (int64_t{1} << 31);
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * by + ty; r < a.length; r += parts) {
      acc = R::push(acc, load_as<T>(base + reduced_offset(r, a.reduced, narrow) * a.in.size, a.in.dtype), r, a);
    }
  }
  // Tree over y in shared memory (by is a power of two).
  alignas(16) __shared__ unsigned char raw[kThreads * sizeof(Acc)];  // this order: hipcc refuses the other
  Acc* s = reinterpret_cast<Acc*>(raw);
  s[ty * bx + tx] = acc;
  __syncthreads();
  for (int h = by / 2; h > 0; h >>= 1) {
    if (ty < h) s[ty * bx + tx] = R::combine(s[ty * bx + tx], s[(ty + h) * bx + tx]);
    __syncthreads();
  }
  if (ty == 0 && m < a.outputs) {
    if (gridDim.y == 1) R::store(a.out.base + out_off * a.out.size, a, s[tx]);
    else partials[static_cast<int64_t>(blockIdx.y) * a.outputs + m] = s[tx];
  }
}

// Second pass of a split reduction: the splits of each output, in order.
template <class R, class T>
__global__ void __launch_bounds__(kThreads) finish_kernel(ReduceArgs a, const typename R::Acc* partials, int32_t splits) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t m = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < a.outputs; m += stride) {
    typename R::Acc acc = R::identity();
    for (int32_t s = 0; s < splits; ++s) acc = R::combine(acc, partials[static_cast<int64_t>(s) * a.outputs + m]);
    int64_t in_off, out_off;
    kept_offsets(m, a.kept, in_off, out_off);
    R::store(a.out.base + out_off * a.out.size, a, acc);
  }
}

int pow2_at_least(int64_t v, int cap) {
  int p = 1;
  while (p < cap && p < v) p <<= 1;
  return p;
}

template <class R, class T>
hal_status_t run(const OpCall& call, const ReduceArgs& a) {
  using Acc = typename R::Acc;
  // Coalesced direction: along the reduction when it runs over contiguous memory, else across outputs.
  const bool along_rows = a.reduced.n > 0 && a.reduced.in_strides[a.reduced.n - 1] == 1;
  int by = along_rows ? pow2_at_least(a.length, kThreads) : kThreads / pow2_at_least(a.outputs, 32);
  const int bx = kThreads / by;
  const int64_t blocks_x = (a.outputs + bx - 1) / bx;
  if (blocks_x > std::numeric_limits<int32_t>::max()) return HAL_STATUS_NOT_SUPPORTED;
  // Split long reductions until the GPU has a few blocks per SM, keeping ≥ 32 elements per thread.
  const int64_t target = static_cast<int64_t>(sm_count(call.device)) * 4;
  int64_t splits = 1;
  if (blocks_x < target) {
    splits = std::min<int64_t>((target + blocks_x - 1) / blocks_x, a.length / (static_cast<int64_t>(by) * 32));
    splits = std::max<int64_t>(1, std::min<int64_t>(splits, 65535));
  }
  const dim3 block(bx, by);
  if (splits == 1) {
    return launch_kernel<reduce_kernel<R, T>>("reduction", call.device, dim3(static_cast<unsigned>(blocks_x), 1), block,
                                              0, call.stream, a, nullptr);
  }
  const size_t bytes = static_cast<size_t>(splits) * static_cast<size_t>(a.outputs) * sizeof(Acc);
  StreamScratch scratch(call.device, call.stream, bytes);
  if (!scratch.ok()) {
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "reduction: no scratch memory for the partial results");
  }
  Acc* partials = scratch.as<Acc>();
  hal_status_t st = launch_kernel<reduce_kernel<R, T>>(
      "reduction", call.device, dim3(static_cast<unsigned>(blocks_x), static_cast<unsigned>(splits)), block, 0,
      call.stream, a, partials);
  if (st == HAL_STATUS_SUCCESS) {
    st = launch_kernel<finish_kernel<R, T>>("reduction (combine)", call.device,
                                            grid_for(a.outputs, kThreads, call.device), kThreads, 0, call.stream, a,
                                            partials, static_cast<int32_t>(splits));
  }
  return st;
}

template <class T>
hal_status_t dispatch(const OpCall& call, const ReduceArgs& a) {
  switch (a.op) {
    case HAL_OP_SUM: case HAL_OP_MEAN: return run<SumReducer<T>, T>(call, a);
    case HAL_OP_PROD: return run<ProdReducer<T>, T>(call, a);
    case HAL_OP_AMAX: return run<ExtremumReducer<T, true>, T>(call, a);
    case HAL_OP_AMIN: return run<ExtremumReducer<T, false>, T>(call, a);
    case HAL_OP_ARGMAX: return run<ArgReducer<T, true>, T>(call, a);
    case HAL_OP_ARGMIN: return run<ArgReducer<T, false>, T>(call, a);
    case HAL_OP_VAR: case HAL_OP_STD:
      if constexpr (std::is_floating_point_v<T>) return run<WelfordReducer<T>, T>(call, a);
      return HAL_STATUS_NOT_SUPPORTED;
    case HAL_OP_ALL: return run<LogicalReducer<T, true>, T>(call, a);
    case HAL_OP_ANY: return run<LogicalReducer<T, false>, T>(call, a);
    case HAL_OP_VECTOR_NORM:
      if constexpr (std::is_floating_point_v<T>) {
        switch (norm_order_of(a.ord)) {
          case NormOrder::Inf: return run<NormReducer<T, NormOrder::Inf>, T>(call, a);
          case NormOrder::NegInf: return run<NormReducer<T, NormOrder::NegInf>, T>(call, a);
          case NormOrder::Zero: return run<NormReducer<T, NormOrder::Zero>, T>(call, a);
          case NormOrder::One: return run<NormReducer<T, NormOrder::One>, T>(call, a);
          case NormOrder::Two: return run<NormReducer<T, NormOrder::Two>, T>(call, a);
          case NormOrder::General: return run<NormReducer<T, NormOrder::General>, T>(call, a);
        }
      }
      return HAL_STATUS_NOT_SUPPORTED;
  }
  return HAL_STATUS_NOT_SUPPORTED;
}

struct Dim {
  int64_t size, in_stride, out_stride;
};

// Sorted by input stride, largest first (row-major-like), then merged where one dimension steps exactly
// over the other in the input (and, for kept dimensions, in the output).
void sort_and_merge(Dim* dims, int& n, bool check_out) {
  std::sort(dims, dims + n, [](const Dim& x, const Dim& y) { return x.in_stride > y.in_stride; });
  int k = 0;
  for (int d = 0; d < n; ++d) {
    if (k > 0 && dims[k - 1].in_stride == dims[d].in_stride * dims[d].size &&
        (!check_out || dims[k - 1].out_stride == dims[d].out_stride * dims[d].size)) {
      dims[k - 1].size *= dims[d].size;
      dims[k - 1].in_stride = dims[d].in_stride;
      dims[k - 1].out_stride = dims[d].out_stride;
    } else {
      dims[k++] = dims[d];
    }
  }
  n = k;
}

void fill_dims(Dims& out, const Dim* dims, int n) {
  out.n = n;
  for (int d = 0; d < n; ++d) {
    out.sizes[d] = dims[d].size;
    out.in_strides[d] = dims[d].in_stride;
    out.out_strides[d] = dims[d].out_stride;
  }
}

}  // namespace

hal_status_t launch_reduction(const OpCall& call) {
  const int32_t op = call.op;
  const bool logical = op == HAL_OP_ALL || op == HAL_OP_ANY, is_norm = op == HAL_OP_VECTOR_NORM;
  if ((op < HAL_OP_SUM || op > HAL_OP_STD) && !logical && !is_norm) return HAL_STATUS_NOT_SUPPORTED;
  if (call.num_inputs != 1 || call.num_outputs != 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& in = call.inputs[0];
  const hal_tensor_t& out = call.outputs[0];
  if (is_scalar_operand(in) || in.ndim < 0 || in.ndim != out.ndim || in.ndim > HAL_MAX_DIMS) return HAL_STATUS_NOT_SUPPORTED;
  const DType in_dtype = dtype_of(in.dtype), out_dtype = dtype_of(out.dtype);
  if (in_dtype == DType::Unsupported || out_dtype == DType::Unsupported) return HAL_STATUS_NOT_SUPPORTED;
  const bool is_arg = op == HAL_OP_ARGMAX || op == HAL_OP_ARGMIN;
  if (is_arg && out_dtype != DType::I64) return HAL_STATUS_NOT_SUPPORTED;
  if ((op == HAL_OP_VAR || op == HAL_OP_STD || is_norm) && call.num_scalars < 1) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, is_norm ? "VECTOR_NORM: missing ord scalar" : "VAR/STD: missing correction scalar");
  }
  if (logical && out_dtype != DType::Bool && out_dtype != DType::U8) return HAL_STATUS_NOT_SUPPORTED;
  if (is_norm && (!is_floating(in_dtype) || !is_floating(out_dtype))) return HAL_STATUS_NOT_SUPPORTED;

  Dim kept[HAL_MAX_DIMS], reduced[HAL_MAX_DIMS];
  int nk = 0, nr = 0;
  int64_t outputs = 1, length = 1;
  for (int d = 0; d < in.ndim; ++d) {
    const int64_t is = in.shape[d], os = out.shape[d];
    if (is == os) {
      outputs *= os;
      if (os != 1) kept[nk++] = Dim{os, in.strides[d], out.strides[d]};
    } else if (os == 1) {
      length *= is;
      reduced[nr++] = Dim{is, in.strides[d], 0};
    } else {
      return HAL_STATUS_NOT_SUPPORTED;  // neither kept nor reduced
    }
  }
  if (outputs == 0) return HAL_STATUS_SUCCESS;
  if (is_arg && nr > 1) return HAL_STATUS_NOT_SUPPORTED;  // one reduced dimension gives one index space
  if (length > 0) {
    for (int d = 0; d < nr; ++d) {
      if (reduced[d].size == 0) length = 0;
    }
  }
  if (length == 0) nr = 0;  // nothing to read: every output is the reducer's empty result
  else sort_and_merge(reduced, nr, false);
  sort_and_merge(kept, nk, true);

  ReduceArgs a;
  a.in.base = length > 0 ? element0(in) : nullptr;
  a.in.dtype = in_dtype;
  a.in.size = dtype_size(in_dtype);
  a.out.base = element0(out);
  a.out.dtype = out_dtype;
  a.out.size = dtype_size(out_dtype);
  fill_dims(a.kept, kept, nk);
  fill_dims(a.reduced, reduced, nr);
  a.outputs = outputs;
  a.length = length;
  a.op = op;
  if (op == HAL_OP_VAR || op == HAL_OP_STD) {
    const hal_scalar_t& c = call.scalars[0];
    a.correction = c.kind == 0 ? c.value.f : c.kind == 1 ? static_cast<double>(c.value.i) : c.value.b;
  }
  if (is_norm) {
    const hal_scalar_t& c = call.scalars[0];
    a.ord = c.kind == 0 ? c.value.f : c.kind == 1 ? static_cast<double>(c.value.i) : c.value.b;
  }

  // Compute type: float64 for f64, float32 for other floats, int64 for integers and bool (adapter.h);
  // an explicit floating output dtype (sum(..., dtype=)) counts too, except the index of argmax/argmin.
  // all/any's bool output says nothing of how to read the input.
  const bool out_counts = !is_arg && !logical;
  const bool any_double = in_dtype == DType::F64 || (out_counts && out_dtype == DType::F64);
  const bool any_float = is_floating(in_dtype) || (out_counts && is_floating(out_dtype));
  if (any_double) return dispatch<double>(call, a);
  if (any_float) return dispatch<float>(call, a);
  if (op == HAL_OP_MEAN || op == HAL_OP_VAR || op == HAL_OP_STD) return HAL_STATUS_NOT_SUPPORTED;
  return dispatch<int64_t>(call, a);
}

}  // namespace hal_gpu
