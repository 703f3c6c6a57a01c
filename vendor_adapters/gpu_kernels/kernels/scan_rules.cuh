// The scan family's combination (CUMSUM: sums, CUMPROD: products) with its identity, one source for nvcc, hipcc and
// clang's SPIR-V: scan.cu's kernels and ../../spirv_kernels/kernels/scan.cl walk lines around it.
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

template <class T, bool Prod>
struct ScanCombine {
  __device__ static T identity() { return Prod ? T(1) : T(0); }
  __device__ static T of(T a, T b) { return Prod ? a * b : a + b; }
};

}  // namespace hal_gpu
