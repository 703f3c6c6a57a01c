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

// The op's own scalars (`own` points at the first; adapter_ops.def says how many and of which kind) as the
// kernels' Params: numbers (alpha, negative_slope, softplus's beta and threshold, ...) in s0..s2, in order, and
// a mode (DIV's rounding, GELU's approximation, ELU_BACKWARD's is_result) after them.
template <class T>
ew::Params<T> params_of(int32_t op, const hal_scalar_t* own) {
  ew::Params<T> p;
  const ew::Scalar kind = ew::op_info(op).scalar;
  if (kind == ew::Scalar::Mode) {
    p.mode = static_cast<int32_t>(scalar_as<int64_t>(own[0]));
    return p;
  }
  const int32_t values = kind == ew::Scalar::Values3Mode ? 3 : ew::own_scalar_count(kind);
  T* const slots[3] = {&p.s0, &p.s1, &p.s2};
  for (int32_t i = 0; i < values; ++i) *slots[i] = scalar_as<T>(own[i]);
  if (kind == ew::Scalar::Values3Mode) p.mode = static_cast<int32_t>(scalar_as<int64_t>(own[3]));
  return p;
}

}  // namespace hal_gpu
