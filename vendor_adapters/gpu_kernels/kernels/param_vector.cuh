// A per-channel or per-row parameter of the normalization kernels (weight, bias, running statistics, saved
// mean/rstd): a strided 1-D operand of any floating dtype that may be ABSENT, read and written in the
// accumulation type. One definition for batch_norm.cu, group_norm.cu and layer_norm.cu.
#pragma once

#include <cstdint>

#include "kernels/tensor_access.cuh"
#include "kernels/tensor_operands.h"

namespace hal_gpu {

struct Vec {
  char* base = nullptr;  // nullptr: absent
  DType dtype = DType::Unsupported;
  int64_t stride = 0;
  int32_t elem_size = 0;
};

inline Vec vec_of(const hal_tensor_t& t) {
  Vec v;
  if (is_absent(t)) return v;
  v.base = element0(t);
  v.dtype = dtype_of(t.dtype);
  v.elem_size = dtype_size(v.dtype);
  v.stride = t.ndim >= 1 ? t.strides[t.ndim - 1] : 0;
  return v;
}

// Element j, or `absent_value` for an absent operand (1 for a weight, 0 for a bias).
template <class Acc>
__device__ __forceinline__ Acc vec_at(const Vec& v, int64_t j, Acc absent_value) {
  return v.base ? load_as<Acc>(v.base + j * v.stride * v.elem_size, v.dtype) : absent_value;
}

// Stores element j; nothing for an absent operand (an output the caller does not want).
template <class Acc>
__device__ __forceinline__ void vec_store(const Vec& v, int64_t j, Acc value) {
  if (v.base) store_from<Acc>(v.base + j * v.stride * v.elem_size, v.dtype, value);
}

// Host-side checks of such operands. A parameter of n values: 1-D of any stride and floating dtype, or
// absent (read through vec_at/vec_store).
inline bool is_param_vector(const hal_tensor_t& t, int64_t n) {
  if (is_absent(t)) return true;
  return t.data != nullptr && t.ndim == 1 && t.shape[0] == n && is_floating(dtype_of(t.dtype));
}

// Saved statistics the kernels index as a plain array: present, n dense values of the accumulation type.
inline bool is_acc_vector(const hal_tensor_t& t, int64_t n, DType acc) {
  return t.data != nullptr && t.ndim == 1 && t.shape[0] == n && (t.strides[0] == 1 || n == 1) &&
         dtype_of(t.dtype) == acc;
}

}  // namespace hal_gpu
