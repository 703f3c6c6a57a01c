// Reading hal_tensor_t operands inside CUDA kernels: loads and stores of runtime dtypes, strided offsets,
// compute types (the host-side checks of operands: tensor_operands.h).
// Shared by every kernel family of the GPU kernel library (one implementation of dtype loads and stores).
#pragma once

#include <cstdint>

#include "kernels/gpu_runtime.h"
#include "kernels/tensor_operands.h"
#include "torch_hal/adapter.h"

namespace hal_gpu {

// Loads element `p` of runtime type `d`, converted to the compute type T (float, double or int64_t).
template <class T>
__device__ __forceinline__ T load_as(const void* p, DType d) {
  switch (d) {
    case DType::Bool: return static_cast<T>(*static_cast<const bool*>(p) ? 1 : 0);
    case DType::U8: return static_cast<T>(*static_cast<const uint8_t*>(p));
    case DType::I8: return static_cast<T>(*static_cast<const int8_t*>(p));
    case DType::I16: return static_cast<T>(*static_cast<const int16_t*>(p));
    case DType::I32: return static_cast<T>(*static_cast<const int32_t*>(p));
    case DType::I64: return static_cast<T>(*static_cast<const int64_t*>(p));
    case DType::F16: return static_cast<T>(__half2float(*static_cast<const __half*>(p)));
    case DType::BF16: return static_cast<T>(__bfloat162float(*static_cast<const __nv_bfloat16*>(p)));
    case DType::F32: return static_cast<T>(*static_cast<const float*>(p));
    case DType::F64: return static_cast<T>(*static_cast<const double*>(p));
    default: return T(0);
  }
}

// Float to integer conversion as PyTorch does it on CUDA (truncation; out-of-range is undefined there
// too), with bool meaning "not zero".
template <class T>
__device__ __forceinline__ void store_from(void* p, DType d, T v) {
  switch (d) {
    case DType::Bool: *static_cast<bool*>(p) = (v != T(0)); break;
    case DType::U8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(static_cast<int64_t>(v)); break;
    case DType::I8: *static_cast<int8_t*>(p) = static_cast<int8_t>(static_cast<int64_t>(v)); break;
    case DType::I16: *static_cast<int16_t*>(p) = static_cast<int16_t>(static_cast<int64_t>(v)); break;
    case DType::I32: *static_cast<int32_t*>(p) = static_cast<int32_t>(static_cast<int64_t>(v)); break;
    case DType::I64: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case DType::F16: *static_cast<__half*>(p) = __float2half(static_cast<float>(v)); break;
    case DType::BF16: *static_cast<__nv_bfloat16*>(p) = __float2bfloat16(static_cast<float>(v)); break;
    case DType::F32: *static_cast<float*>(p) = static_cast<float>(v); break;
    case DType::F64: *static_cast<double*>(p) = static_cast<double>(v); break;
    default: break;
  }
}

// A tensor as a kernel argument (passed by value): base pointer, dtype, and strides in elements.
// A kernel walking strided operands takes them, with their Shape and Divisors, as members of ONE by-value
// argument struct. As separate by-value parameters (or copied into a local array) that a loop over a runtime
// dimension indexes, nvcc copies them into each thread's local memory: a 224-byte stack frame per thread,
// which made a 103 MB copy take 1.5 ms on the H100 instead of 0.1 ms. `nvcc -Xptxas -v` shows a 0-byte stack
// frame for the struct form; tests/python/test_kernel_stack_frames.py keeps it so.
struct Operand {
  char* base = nullptr;
  DType dtype = DType::Unsupported;
  int32_t elem_size = 0;
  int64_t strides[HAL_MAX_DIMS] = {};
};

// A tensor's element 0, dtype and element size, without its strides: the operands of kernels that find their
// element offsets themselves (reductions, scans).
struct Elements {
  char* base = nullptr;
  DType dtype = DType::Unsupported;
  int32_t size = 0;
};

// The iteration space shared by the operands of an elementwise op.
struct Shape {
  int32_t ndim = 0;
  int64_t sizes[HAL_MAX_DIMS] = {};
};

inline Operand operand_of(const hal_tensor_t& t) {
  Operand o;
  o.base = element0(t);
  o.dtype = dtype_of(t.dtype);
  o.elem_size = dtype_size(o.dtype);
  for (int i = 0; i < t.ndim && i < HAL_MAX_DIMS; ++i) o.strides[i] = t.strides[i];
  return o;
}

inline Shape shape_of(const hal_tensor_t& t) {
  Shape s;
  s.ndim = t.ndim;
  for (int i = 0; i < t.ndim && i < HAL_MAX_DIMS; ++i) s.sizes[i] = t.shape[i];
  return s;
}

// Drops size-1 dimensions and merges dimensions that are contiguous with each other in every operand, in
// place: a strided walk then divides once per remaining dimension, and operands dense in one layout become a
// single dimension, which needs no division at all.
inline void merge_contiguous_dims(Shape& shape, Operand* ops, int num_ops) {
  int nd = 0;
  for (int d = 0; d < shape.ndim; ++d) {
    if (shape.sizes[d] == 1) continue;
    bool merge = nd > 0;
    for (int k = 0; k < num_ops && merge; ++k) merge = ops[k].strides[nd - 1] == ops[k].strides[d] * shape.sizes[d];
    if (merge) {
      shape.sizes[nd - 1] *= shape.sizes[d];
      for (int k = 0; k < num_ops; ++k) ops[k].strides[nd - 1] = ops[k].strides[d];
    } else {
      shape.sizes[nd] = shape.sizes[d];
      for (int k = 0; k < num_ops; ++k) ops[k].strides[nd] = ops[k].strides[d];
      ++nd;
    }
  }
  shape.ndim = nd;
}

// Element offsets (in elements) of the row-major linear index `i` for up to N operands at once, so the
// divisions are shared between them.
template <int N>
__device__ __forceinline__ void offsets_of(int64_t i, const Shape& shape, const Operand* ops, int64_t* out) {
#pragma unroll
  for (int k = 0; k < N; ++k) out[k] = 0;
  for (int d = shape.ndim - 1; d >= 0; --d) {
    const int64_t size = shape.sizes[d];
    const int64_t coord = i % size;
    i /= size;
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] += coord * ops[k].strides[d];
  }
}

// Division of a 32-bit index by a dimension's size as a multiply-high, an add and a shift (Granlund and
// Montgomery's method, as PyTorch's IntDivider): for indexes below 2^31 and sizes up to 2^31. A 32-bit
// division is a software routine of about twenty instructions on GPUs, and a strided elementwise kernel
// does one per dimension per element: on the H100 that, not memory, set the time of transposing copies.
struct FastDivisor {
  uint32_t divisor = 1, magic = 1, shift = 0;
  FastDivisor() = default;
  explicit FastDivisor(uint32_t d) : divisor(d) {
    if (d <= 1) return;  // n / 1 (and no element to divide where a size is 0)
    while (shift < 31 && (uint32_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t quotient(uint32_t n) const { return (__umulhi(n, magic) + n) >> shift; }
};

// A shape's sizes as FastDivisors, computed on the host once per launch.
struct Divisors {
  FastDivisor of[HAL_MAX_DIMS];
};

inline Divisors divisors_of(const Shape& shape) {
  Divisors d;
  for (int i = 0; i < shape.ndim; ++i) d.of[i] = FastDivisor(static_cast<uint32_t>(shape.sizes[i]));
  return d;
}

// offsets_of for iterations of fewer than 2^31 elements, dividing with `div` (divisors_of(shape)); offsets
// stay 64-bit (strides of a view may still reach past 2^31). One dimension needs no division at all.
template <int N>
__device__ __forceinline__ void offsets_of32(uint32_t i, const Shape& shape, const Divisors& div, const Operand* ops,
                                             int64_t* out) {
#pragma unroll
  for (int k = 0; k < N; ++k) out[k] = 0;
  if (shape.ndim == 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = static_cast<int64_t>(i) * ops[k].strides[0];
    return;
  }
  for (int d = shape.ndim - 1; d >= 0; --d) {
    const uint32_t next = div.of[d].quotient(i);
    const uint32_t coord = i - next * div.of[d].divisor;
    i = next;
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] += static_cast<int64_t>(coord) * ops[k].strides[d];
  }
}

}  // namespace hal_gpu
