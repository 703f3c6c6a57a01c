// hal_tensor_t operands as the kernel library's host code reads them: runtime dtypes, element counts, layout
// checks. Free of device code, so adapters whose kernels are not CUDA or HIP (the OpenCL adapter, compiled with
// HAL_GPU_HOST_ONLY) check operands exactly as the CUDA and HIP launches do; tensor_access.cuh adds the device
// side (loads, stores, strided offsets).
#pragma once

#include <cstdint>

#include "kernels/gpu_runtime.h"
#include "torch_hal/adapter.h"

namespace hal_gpu {

enum class DType : uint8_t { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64, Unsupported };

inline DType dtype_of(hal_dtype_t t) {
  if (t.lanes != 1) return DType::Unsupported;
  switch (t.code) {
    case HAL_DTYPE_BOOL: return t.bits == 8 ? DType::Bool : DType::Unsupported;
    case HAL_DTYPE_UINT: return t.bits == 8 ? DType::U8 : DType::Unsupported;
    case HAL_DTYPE_INT:
      switch (t.bits) {
        case 8: return DType::I8;
        case 16: return DType::I16;
        case 32: return DType::I32;
        case 64: return DType::I64;
      }
      return DType::Unsupported;
    case HAL_DTYPE_FLOAT:
      switch (t.bits) {
        case 16: return DType::F16;
        case 32: return DType::F32;
        case 64: return DType::F64;
      }
      return DType::Unsupported;
    case HAL_DTYPE_BFLOAT: return t.bits == 16 ? DType::BF16 : DType::Unsupported;
  }
  return DType::Unsupported;
}

__host__ __device__ inline int dtype_size(DType d) {
  switch (d) {
    case DType::Bool: case DType::U8: case DType::I8: return 1;
    case DType::I16: case DType::F16: case DType::BF16: return 2;
    case DType::I32: case DType::F32: return 4;
    case DType::I64: case DType::F64: return 8;
    default: return 0;
  }
}

inline bool is_floating(DType d) { return d == DType::F16 || d == DType::BF16 || d == DType::F32 || d == DType::F64; }

// A scalar (adapter.h: float, int or bool) as a double or an int64.
inline double scalar_as_double(const hal_scalar_t& s) {
  return s.kind == 0 ? s.value.f : s.kind == 1 ? static_cast<double>(s.value.i) : (s.value.b ? 1.0 : 0.0);
}
inline int64_t scalar_as_int(const hal_scalar_t& s) {
  return s.kind == 1 ? s.value.i : s.kind == 0 ? static_cast<int64_t>(s.value.f) : (s.value.b ? 1 : 0);
}
// A flag scalar (SORT's descending, SEARCHSORTED's right): nonzero of any kind.
inline bool scalar_true(const hal_scalar_t& s) {
  return s.kind == 2 ? s.value.b != 0 : s.kind == 1 ? s.value.i != 0 : s.value.f != 0;
}

// The ABI's scalar operands and absent tensors.
inline bool is_scalar_operand(const hal_tensor_t& t) { return t.data == nullptr && t.ndim == 0; }
inline bool is_absent(const hal_tensor_t& t) { return t.data == nullptr && t.ndim < 0; }

// The [n] parameters of the normalization ops (weight, bias, running statistics): 1-D of any stride and floating
// dtype, or absent (param_vector.cuh reads them in kernels).
inline bool is_param_vector(const hal_tensor_t& t, int64_t n) {
  if (is_absent(t)) return true;
  return t.data != nullptr && t.ndim == 1 && t.shape[0] == n && is_floating(dtype_of(t.dtype));
}

// Saved statistics the kernels index as a plain array: present, n dense values of the accumulation type.
inline bool is_acc_vector(const hal_tensor_t& t, int64_t n, DType acc) {
  return t.data != nullptr && t.ndim == 1 && t.shape[0] == n && (t.strides[0] == 1 || n == 1) &&
         dtype_of(t.dtype) == acc;
}

inline char* element0(const hal_tensor_t& t) { return static_cast<char*>(t.data) + t.byte_offset; }

inline int64_t numel(const hal_tensor_t& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

// The same rank and sizes (strides aside).
inline bool same_shape(const hal_tensor_t& a, const hal_tensor_t& b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
  }
  return true;
}

// Row-major dense, ignoring size-1 dimensions.
inline bool is_contiguous(const hal_tensor_t& t) {
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] == 1) continue;
    if (t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

}  // namespace hal_gpu
