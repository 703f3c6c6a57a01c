// The op's own scalars of an elementwise op, read on the host into the kernels' Params. Host code only, and
// free of the library's device headers, so adapters whose kernels are not CUDA or HIP (the OpenCL adapter's
// SPIR-V kernels, compiled with HAL_GPU_HOST_ONLY) read scalars exactly as the CUDA and HIP launches do.
#pragma once

#include <cstdint>

#include "kernels/elementwise_ops.cuh"
#include "torch_hal/adapter.h"

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
