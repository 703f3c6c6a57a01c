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

// The op's own scalar (`own` points at it; adapter_ops.def says whether there is one and which kind) as the
// kernels' Params: a mode (DIV's rounding, GELU's approximation) or a value (alpha, negative_slope, ...).
template <class T>
ew::Params<T> params_of(int32_t op, const hal_scalar_t* own) {
  ew::Params<T> p;
  switch (ew::op_info(op).scalar) {
    case ew::Scalar::None: break;
    case ew::Scalar::Mode: p.mode = static_cast<int32_t>(scalar_as<int64_t>(*own)); break;
    case ew::Scalar::Value: p.s0 = scalar_as<T>(*own); break;
  }
  return p;
}

}  // namespace hal_gpu
