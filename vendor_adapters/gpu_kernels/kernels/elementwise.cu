// The elementwise family: FILL, COPY, ARANGE and every unary, binary, activation-backward and ternary op
// of adapter.h. A launch is checked and described on the host (dtypes, compute type, scalars, coalesced
// dimensions); it then takes the vectorized path (elementwise_vectorized.cu) when every tensor operand is
// contiguous and of one floating dtype, else a generic strided kernel templated only on arity and
// compute type, which converts each operand's dtype as it loads and stores (no temporaries).

#include <cstring>

#include "kernels/adapter_services.h"
#include "kernels/elementwise_generic.cuh"
#include "kernels/elementwise_ops.cuh"
#include "kernels/elementwise_scalars.cuh"
#include "kernels/elementwise_special.cuh"
#include "kernels/elementwise_vectorized.h"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {
namespace {

using ew::Params;

constexpr int kThreads = kGenericThreads;
constexpr int kMaxOperands = 4;  // one output and up to three inputs

enum class Compute { I64, F32, F64 };

// The ABI's compute type: float64 if any operand is, else float32 if any is floating, else int64. A bool
// output (comparisons, isnan) does not take part. Scalar operands count by the dtype they stand for.
Compute compute_type(const hal_tensor_t* inputs, int num_inputs, const hal_tensor_t& out) {
  bool any_float = false, any_double = false;
  auto visit = [&](DType d) {
    any_double |= d == DType::F64;
    any_float |= is_floating(d);
  };
  for (int k = 0; k < num_inputs; ++k) visit(dtype_of(inputs[k].dtype));
  if (dtype_of(out.dtype) != DType::Bool) visit(dtype_of(out.dtype));
  return any_double ? Compute::F64 : any_float ? Compute::F32 : Compute::I64;
}

// The iteration of one launch: shape and operand strides after dropping size-1 dimensions and merging
// dimensions that are contiguous with each other in every operand (fewer divisions per element).
struct Iteration {
  Shape shape;
  Operand ops[kMaxOperands];  // output first, then inputs (scalar operands: base NULL, strides 0)
  int num_ops = 0;
  int64_t numel = 1;
};

// The library's elementwise math, one element (the special functions have a kernel of their own).
struct ApplyMath {
  template <int NIN, class T>
  __device__ __forceinline__ static T of(int32_t op, const T* v, const Params<T>& p) {
    return ew::apply_runtime<NIN, T>(op, v, p);
  }
};

template <class T, int NIN, bool Wide>
__global__ void __launch_bounds__(kThreads) generic_kernel(int64_t n, GenericArgs<T, NIN> a) {
  generic_walk<ApplyMath, T, NIN, Wide>(n, a);
}

template <class T, int NIN>
hal_status_t launch_generic(const OpCall& call, int32_t op, const Iteration& it, const T* values,
                            const bool* is_scalar, const Params<T>& params) {
  GenericArgs<T, NIN> a{};
  a.shape = it.shape;
  a.div = divisors_of(it.shape);
  for (int k = 0; k <= NIN; ++k) a.ops[k] = it.ops[k];
  for (int k = 0; k < NIN; ++k) {
    a.value[k] = values[k];
    a.is_scalar[k] = is_scalar[k];
  }
  a.params = params;
  a.op = op;
  if (ew::is_special_function(op)) return launch_special_functions<T, NIN>(it.numel, a, call.device, call.stream);
  const unsigned grid = grid_for(it.numel, kThreads, call.device);
  if (it.numel < (int64_t{1} << 31)) {
    return launch_kernel<generic_kernel<T, NIN, false>>("elementwise", call.device, grid, kThreads, 0, call.stream,
                                                        it.numel, a);
  }
  return launch_kernel<generic_kernel<T, NIN, true>>("elementwise", call.device, grid, kThreads, 0, call.stream,
                                                     it.numel, a);
}

// Scalars of the launch in the compute type, then the generic kernel of the op's arity.
template <class T>
hal_status_t run_generic(const OpCall& call, int32_t op, const Iteration& it, int arity) {
  T values[3] = {};
  bool is_scalar[3] = {};
  int next = 0;
  for (int k = 0; k < arity; ++k) {
    if (is_scalar_operand(call.inputs[k])) {
      is_scalar[k] = true;
      values[k] = scalar_operand_as<T>(call.scalars[next++], dtype_of(call.inputs[k].dtype));
    }
  }
  const Params<T> params = params_of<T>(op, call.scalars + next);
  switch (arity) {
    case 1: return launch_generic<T, 1>(call, op, it, values, is_scalar, params);
    case 2: return launch_generic<T, 2>(call, op, it, values, is_scalar, params);
    default: return launch_generic<T, 3>(call, op, it, values, is_scalar, params);
  }
}

// ---- FILL: the value's bytes in the output's dtype, written as 16-byte words where possible -----------

// The bit pattern of `s` converted to dtype d, in the low dtype_size(d) bytes.
uint64_t encode(const hal_scalar_t& s, DType d) {
  uint64_t bits = 0;
  auto put = [&](auto v) { std::memcpy(&bits, &v, sizeof(v)); };
  const double f = s.kind == 0 ? s.value.f : s.kind == 1 ? static_cast<double>(s.value.i) : (s.value.b ? 1.0 : 0.0);
  const int64_t i = s.kind == 0 ? static_cast<int64_t>(s.value.f) : s.kind == 1 ? s.value.i : (s.value.b ? 1 : 0);
  switch (d) {
    case DType::Bool: put(static_cast<uint8_t>(s.kind == 0 ? (f != 0) : (i != 0))); break;
    case DType::U8: put(static_cast<uint8_t>(i)); break;
    case DType::I8: put(static_cast<int8_t>(i)); break;
    case DType::I16: put(static_cast<int16_t>(i)); break;
    case DType::I32: put(static_cast<int32_t>(i)); break;
    case DType::I64: put(i); break;
    case DType::F16: put(__float2half_rn(static_cast<float>(f))); break;
    case DType::BF16: put(__float2bfloat16_rn(static_cast<float>(f))); break;
    case DType::F32: put(static_cast<float>(f)); break;
    case DType::F64: put(f); break;
    default: break;
  }
  return bits;
}

__global__ void __launch_bounds__(kThreads) fill_words_kernel(uint4* out, int64_t words, uint4 pattern) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) out[i] = pattern;
}

// One argument struct (see Operand in tensor_access.cuh: separate by-value Shape and Operand parameters cost
// each thread a local copy).
struct FillArgs {
  int64_t n;
  Shape shape;
  Divisors div;  // of shape (the 32-bit kernel's)
  Operand out;
  uint64_t bits;
};

template <bool Wide>
__global__ void __launch_bounds__(kThreads) fill_strided_kernel(FillArgs a) {
  using Index = std::conditional_t<Wide, int64_t, uint32_t>;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < static_cast<Index>(a.n); i += stride) {
    int64_t off;
    if constexpr (Wide) offsets_of<1>(i, a.shape, &a.out, &off);
    else offsets_of32<1>(i, a.shape, a.div, &a.out, &off);
    char* p = a.out.base + off * a.out.elem_size;
    switch (a.out.elem_size) {
      case 1: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(a.bits); break;
      case 2: *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(a.bits); break;
      case 4: *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(a.bits); break;
      default: *reinterpret_cast<uint64_t*>(p) = a.bits; break;
    }
  }
}

hal_status_t run_fill(const OpCall& call, Iteration& it) {
  if (call.num_scalars < 1) return fail(HAL_STATUS_INVALID_ARGUMENT, "FILL: missing value scalar");
  const Operand& out = it.ops[0];
  const uint64_t bits = encode(call.scalars[0], out.dtype);
  const int size = out.elem_size;
  if (it.shape.ndim <= 1 && (it.shape.ndim == 0 || it.ops[0].strides[0] == 1)) {
    const int64_t bytes = it.numel * size;
    bool uniform_bytes = true;  // every byte of the pattern equal: one memset
    for (int b = 1; b < size; ++b) uniform_bytes &= ((bits >> (8 * b)) & 0xFF) == (bits & 0xFF);
    if (uniform_bytes) {
      return memset_async(out.base, static_cast<int>(bits & 0xFF), bytes, call.stream, "fill (memset)");
    }
    if (reinterpret_cast<uintptr_t>(out.base) % 16 == 0) {
      uint64_t word[2];
      for (int b = 0; b < 16; b += size) std::memcpy(reinterpret_cast<char*>(word) + b, &bits, size);
      uint4 pattern;
      std::memcpy(&pattern, word, 16);
      const int64_t words = bytes / 16;
      if (words > 0) {
        const unsigned grid = grid_for(words, kThreads, call.device, kUncapped);
        const hal_status_t st = launch_kernel<fill_words_kernel>("fill", call.device, grid, kThreads, 0, call.stream,
                                                                 reinterpret_cast<uint4*>(out.base), words, pattern);
        if (st != HAL_STATUS_SUCCESS) return st;
      }
      const int64_t done = words * 16 / size;
      if (done == it.numel) return HAL_STATUS_SUCCESS;
      // The tail past the last whole word, as a short 1-D strided fill.
      it.ops[0].base += done * size;
      it.shape.ndim = 1;
      it.shape.sizes[0] = it.numel - done;
      it.ops[0].strides[0] = 1;
      it.numel -= done;
    }
  }
  const unsigned grid = grid_for(it.numel, kThreads, call.device);
  FillArgs args{it.numel, it.shape, Divisors(), it.ops[0], bits};
  if (it.numel < (int64_t{1} << 31)) {
    args.div = divisors_of(it.shape);
    return launch_kernel<fill_strided_kernel<false>>("fill", call.device, grid, kThreads, 0, call.stream, args);
  }
  return launch_kernel<fill_strided_kernel<true>>("fill", call.device, grid, kThreads, 0, call.stream, args);
}

// ---- ARANGE: out[i] = start + i * step in the output's compute type ----------------------------------

template <class T>
__global__ void __launch_bounds__(kThreads) arange_kernel(int64_t n, Operand out, T start, T step) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    store_from<T>(out.base + i * out.strides[0] * out.elem_size, out.dtype, ew::arange_at(start, step, i));
  }
}

template <class T>
hal_status_t run_arange(const OpCall& call, const Operand& out, int64_t n) {
  const T start = scalar_as<T>(call.scalars[0]), step = scalar_as<T>(call.scalars[1]);
  return launch_kernel<arange_kernel<T>>("arange", call.device, grid_for(n, kThreads, call.device), kThreads, 0,
                                         call.stream, n, out, start, step);
}

bool valid_operand(const hal_tensor_t& t, const hal_tensor_t& out) {
  if (dtype_of(t.dtype) == DType::Unsupported) return false;
  if (is_scalar_operand(t)) return true;
  if (t.data == nullptr && numel(out) != 0) return false;
  if (t.ndim != out.ndim) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != out.shape[d]) return false;
  }
  return true;
}

}  // namespace

hal_status_t launch_elementwise(const OpCall& call) {
  int32_t op = call.op;
  const bool is_fill = op == HAL_OP_FILL, is_arange = op == HAL_OP_ARANGE;
  const ew::OpInfo info = ew::op_info(op);
  const int arity = is_fill || is_arange ? 0 : info.arity;
  if (!is_fill && !is_arange && arity == 0) return HAL_STATUS_NOT_SUPPORTED;
  if (call.num_outputs != 1 || call.num_inputs != arity) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = call.outputs[0];
  if (out.ndim < 0 || out.ndim > HAL_MAX_DIMS || dtype_of(out.dtype) == DType::Unsupported) return HAL_STATUS_NOT_SUPPORTED;
  for (int k = 0; k < arity; ++k) {
    if (!valid_operand(call.inputs[k], out)) return HAL_STATUS_NOT_SUPPORTED;
  }
  int scalar_operands = 0;
  for (int k = 0; k < arity; ++k) scalar_operands += is_scalar_operand(call.inputs[k]) ? 1 : 0;
  const int own_scalars = is_fill ? 1 : is_arange ? 2 : info.own_scalars;
  if (call.num_scalars < scalar_operands + own_scalars) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "elementwise op: fewer scalars than its scalar operands and own scalars");
  }
  const int64_t n = numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;

  if (is_arange) {
    if (out.ndim != 1) return HAL_STATUS_NOT_SUPPORTED;
    const Operand o = operand_of(out);
    switch (o.dtype) {
      case DType::F64: return run_arange<double>(call, o, n);
      case DType::F32: case DType::F16: case DType::BF16: return run_arange<float>(call, o, n);
      case DType::Bool: return HAL_STATUS_NOT_SUPPORTED;
      default: return run_arange<int64_t>(call, o, n);
    }
  }

  Iteration it;
  it.shape = shape_of(out);
  it.numel = n;
  it.num_ops = 1 + arity;
  it.ops[0] = operand_of(out);
  for (int k = 0; k < arity; ++k) {
    const hal_tensor_t& t = call.inputs[k];
    if (is_scalar_operand(t)) {
      it.ops[k + 1] = Operand{};
      it.ops[k + 1].dtype = dtype_of(t.dtype);
    } else {
      it.ops[k + 1] = operand_of(t);
    }
  }
  if (is_fill) {
    merge_contiguous_dims(it.shape, it.ops, it.num_ops);
    return run_fill(call, it);
  }

  // bitwise_not of bools is logical not (~1 would be "true" again once stored as bool).
  if (op == HAL_OP_BITWISE_NOT && it.ops[1].dtype == DType::Bool) op = HAL_OP_LOGICAL_NOT;
  const Compute compute = compute_type(call.inputs, arity, out);
  if (info.domain == ew::Domain::FloatOnly && compute == Compute::I64) return HAL_STATUS_NOT_SUPPORTED;
  if (info.domain == ew::Domain::IntOnly && compute != Compute::I64) return HAL_STATUS_NOT_SUPPORTED;
  if (op == HAL_OP_DIV && compute == Compute::I64 &&
      scalar_as<int64_t>(call.scalars[scalar_operands]) == 0) {
    return HAL_STATUS_NOT_SUPPORTED;  // true division of integers into an integer output: not an ATen op
  }

  if (op == HAL_OP_COPY && it.ops[0].dtype == it.ops[1].dtype && is_contiguous(out) &&
      !is_scalar_operand(call.inputs[0]) && is_contiguous(call.inputs[0])) {
    if (it.ops[0].base == it.ops[1].base) return HAL_STATUS_SUCCESS;
    return copy_device_async(it.ops[0].base, it.ops[1].base, n * it.ops[0].elem_size, call.stream,
                             "copy (memcpy)");
  }

  // Casts between float32, float16 and bfloat16 of contiguous tensors: vectorized.
  if (op == HAL_OP_COPY && !is_scalar_operand(call.inputs[0]) && is_contiguous(out) && is_contiguous(call.inputs[0])) {
    const hal_status_t st = ew::launch_vectorized_cast(it.ops[0].base, it.ops[0].dtype, it.ops[1].base,
                                                       it.ops[1].dtype, n, call.device, call.stream);
    if (st != HAL_STATUS_NOT_SUPPORTED) return st;
  }

  // The vectorized path: every tensor operand contiguous and of the output's floating dtype.
  if (compute == Compute::F32 && is_contiguous(out)) {
    bool eligible = true;
    ew::VectorizedCall v;
    v.op = op;
    v.dtype = it.ops[0].dtype;
    v.numel = n;
    v.out = it.ops[0].base;
    v.device = call.device;
    v.stream = call.stream;
    int next = 0;
    for (int k = 0; k < arity && eligible; ++k) {
      const hal_tensor_t& t = call.inputs[k];
      if (is_scalar_operand(t)) {
        v.value[k] = scalar_operand_as<float>(call.scalars[next++], dtype_of(t.dtype));
        continue;
      }
      const DType want = (op == HAL_OP_WHERE && k == 0) ? DType::Bool : v.dtype;
      eligible = dtype_of(t.dtype) == want && is_contiguous(t);
      v.in[k] = element0(t);
    }
    if (eligible) {
      v.params = params_of<float>(op, call.scalars + next);
      const hal_status_t st = ew::launch_vectorized(v);
      if (st != HAL_STATUS_NOT_SUPPORTED) return st;
    }
  }

  merge_contiguous_dims(it.shape, it.ops, it.num_ops);
  switch (compute) {
    case Compute::F64: return run_generic<double>(call, op, it, arity);
    case Compute::F32: return run_generic<float>(call, op, it, arity);
    default: return run_generic<int64_t>(call, op, it, arity);
  }
}

}  // namespace hal_gpu
