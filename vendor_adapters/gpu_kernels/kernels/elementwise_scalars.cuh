// The scalars of an elementwise op, read on the host in the op's compute type: scalar operands' values
// and the op's own scalars (adapter.h). Shared by every kernel that runs elementwise math (elementwise.cu
// and its vectorized path, multi_tensor.cu), so each launch reads its scalars the same way.
#pragma once

#include <cstdint>

#include "kernels/elementwise_ops.cuh"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {

// A hal_scalar_t in the compute type T.
template <class T>
T scalar_as(const hal_scalar_t& s) {
  switch (s.kind) {
    case 0: return static_cast<T>(s.value.f);
    case 1: return static_cast<T>(s.value.i);
    default: return static_cast<T>(s.value.b ? 1 : 0);
  }
}

// A scalar operand's value: first the dtype it stands for (integers truncate, bool is "not zero"), then
// the compute type. Floating scalars are not rounded to f16/bf16: PyTorch computes with them in float.
template <class T>
T scalar_operand_as(const hal_scalar_t& s, DType stands_for) {
  if (stands_for == DType::Bool) return static_cast<T>((s.kind == 0 ? s.value.f != 0 : scalar_as<int64_t>(s) != 0) ? 1 : 0);
  if (!is_floating(stands_for)) return static_cast<T>(s.kind == 0 ? static_cast<int64_t>(s.value.f) : scalar_as<int64_t>(s));
  return scalar_as<T>(s);
}

// The op's own scalars (`own` points at the first; ew::op_info(op).own_scalars of them) as the kernels'
// Params: DIV's rounding and GELU's approximation are modes, every other own scalar is a value.
template <class T>
ew::Params<T> params_of(int32_t op, const hal_scalar_t* own) {
  ew::Params<T> p;
  if (ew::op_info(op).own_scalars == 0) return p;
  if (op == HAL_OP_DIV || op == HAL_OP_GELU || op == HAL_OP_GELU_BACKWARD) {
    p.mode = static_cast<int32_t>(scalar_as<int64_t>(*own));
  } else {
    p.s0 = scalar_as<T>(*own);
  }
  return p;
}

}  // namespace hal_gpu
