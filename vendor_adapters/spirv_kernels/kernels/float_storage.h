// The storage <-> accumulation conversions that the kernel library's shared kernel bodies expect of their includer
// (softmax_math.cuh, pooling.cuh, batch_norm.cuh; family_support.cuh provides them on CUDA and HIP), for the
// float32 storage of the SPIR-V modules. Include it before those bodies.
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {
template <class Acc>
inline Acc to_acc(float v) { return v; }
template <class T, class A>
inline T from_acc(A v) { return static_cast<T>(v); }
}  // namespace hal_gpu
