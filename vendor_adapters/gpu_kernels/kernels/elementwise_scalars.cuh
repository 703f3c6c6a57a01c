// The scalars of an elementwise op, read on the host in the op's compute type: scalar operands' values
// here, the op's own scalars in elementwise_params.h (adapter.h). Shared by every kernel that runs
// elementwise math (elementwise.cu and its vectorized path, multi_tensor.cu), so each launch reads its
// scalars the same way.
#pragma once

#include <cstdint>

#include "kernels/elementwise_params.h"
#include "kernels/tensor_operands.h"  // DType: host code (the SPIR-V plans) reads these scalars too

namespace hal_gpu {

// A scalar operand's value: first the dtype it stands for (integers truncate, bool is "not zero"), then
// the compute type. Floating scalars are not rounded to f16/bf16: PyTorch computes with them in float.
template <class T>
T scalar_operand_as(const hal_scalar_t& s, DType stands_for) {
  if (stands_for == DType::Bool) {
    return static_cast<T>((s.kind == 0 ? s.value.f != 0 : scalar_as<int64_t>(s) != 0) ? 1 : 0);
  }
  if (!is_floating(stands_for)) {
    return static_cast<T>(s.kind == 0 ? static_cast<int64_t>(s.value.f) : scalar_as<int64_t>(s));
  }
  return scalar_as<T>(s);
}

}  // namespace hal_gpu
