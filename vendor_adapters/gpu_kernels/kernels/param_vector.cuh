// A per-channel or per-row parameter of the normalization kernels (weight, bias, running statistics, saved
// mean/rstd): a strided 1-D operand of any floating dtype that may be ABSENT, read and written in the
// accumulation type. One definition for batch_norm.cu, group_norm.cu and layer_norm.cu; the host's checks of such
// operands (is_param_vector, is_acc_vector) are tensor_operands.h's.
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

}  // namespace hal_gpu
