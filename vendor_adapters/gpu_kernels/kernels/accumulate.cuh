// How the kernels accumulate, for every compiler of the library (nvcc, hipcc, and clang as C++ for OpenCL, whose
// SPIR-V kernels include this header too): the conversions between a kernel's storage type and its accumulation
// type, and sums (maxima) over a block. family_support.cuh includes it for the CUDA and HIP families.
//
// On CUDA and HIP a block reduces warp by warp with shuffles, through `shared` (32 values), in a fixed shape, so
// results are deterministic run to run. OpenCL's sub-group shuffles are an extension that devices (and
// llvm-spirv-15's inputs) may lack; a work-group reduces with OpenCL 2.0's work-group collectives, as the softmax
// kernels do (Intel's CPU runtime ran them 2 to 20 times faster than a local-memory tree with a barrier per level).
// Host code (HAL_GPU_HOST_ONLY: the SPIR-V launch plans read the constants of the headers that include this one)
// sees the float and double conversions alone.
#pragma once

#include "kernels/gpu_runtime.h"
#if defined(__OPENCL_CPP_VERSION__)
#include "kernels/half_bits.h"
#endif

namespace hal_gpu {

// Storage type <-> accumulation type, for kernels templated on the storage type.
template <class Acc> __device__ __forceinline__ Acc to_acc(float v) { return static_cast<Acc>(v); }
template <class Acc> __device__ __forceinline__ Acc to_acc(double v) { return static_cast<Acc>(v); }
#if !defined(__OPENCL_CPP_VERSION__) && !defined(HAL_GPU_HOST_ONLY)
template <class Acc> __device__ __forceinline__ Acc to_acc(__half v) { return static_cast<Acc>(__half2float(v)); }
template <class Acc> __device__ __forceinline__ Acc to_acc(__nv_bfloat16 v) {
  return static_cast<Acc>(__bfloat162float(v));
}
#endif
template <class T> struct FromAcc;
template <> struct FromAcc<float> { template <class A> __device__ static float of(A v) { return static_cast<float>(v); } };
template <> struct FromAcc<double> { template <class A> __device__ static double of(A v) { return static_cast<double>(v); } };
#if !defined(__OPENCL_CPP_VERSION__) && !defined(HAL_GPU_HOST_ONLY)
template <> struct FromAcc<__half> { template <class A> __device__ static __half of(A v) { return __float2half(static_cast<float>(v)); } };
template <> struct FromAcc<__nv_bfloat16> {
  template <class A> __device__ static __nv_bfloat16 of(A v) { return __float2bfloat16(static_cast<float>(v)); }
};
#endif
#if defined(__OPENCL_CPP_VERSION__)
// float16 and bfloat16 elements of the SPIR-V kernels: their bits, converted by integer arithmetic (half_bits.h),
// so the shared bodies run on devices without half arithmetic (cl_khr_fp16 is optional). The storage types of the
// bodies' templates where CUDA has __half and __nv_bfloat16.
struct float16_bits {
  uint16_t bits;
};
struct bfloat16_bits {
  uint16_t bits;
};
template <class Acc> __forceinline__ Acc to_acc(float16_bits v) {
  return static_cast<Acc>(float_of_float16(v.bits));
}
template <class Acc> __forceinline__ Acc to_acc(bfloat16_bits v) {
  return static_cast<Acc>(float_of_bfloat16(v.bits));
}
// The stores out of line: inlined after a loop's sum, their NaN test lands before the sum's block in
// llvm-spirv-15's output, which spirv-val rejects ("ID has not been defined"); one call per stored element.
template <> struct FromAcc<float16_bits> {
  template <class A> __attribute__((noinline)) static float16_bits of(A v) {
    return {float16_of_float(static_cast<float>(v))};
  }
};
template <> struct FromAcc<bfloat16_bits> {
  template <class A> __attribute__((noinline)) static bfloat16_bits of(A v) {
    return {bfloat16_of_float(static_cast<float>(v))};
  }
};
#endif
template <class T, class A>
__device__ __forceinline__ T from_acc(A v) { return FromAcc<T>::of(v); }

#if !defined(__OPENCL_CPP_VERSION__) && !defined(HAL_GPU_HOST_ONLY)
// Sums over a warp (every lane gets the total) and over a block (thread 0's result is broadcast through
// shared memory; every thread gets it). `shared` holds at least 32 values.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}
template <class T>
__device__ __forceinline__ T warp_max(T v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    const T o = __shfl_xor_sync(0xffffffffu, v, m);
    v = (o > v || o != o) ? o : v;  // NaN propagates, as in ATen's CUDA max
  }
  return v;
}
template <class T, bool kMax>
__device__ __forceinline__ T block_reduce(T v, T* shared) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  v = kMax ? warp_max(v) : warp_sum(v);
  __syncthreads();  // `shared` may still be read from a previous reduction
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T w = lane < warps ? shared[lane] : shared[0];
    if (!kMax && lane >= warps) w = T(0);
    w = kMax ? warp_max(w) : warp_sum(w);
    if (lane == 0) shared[0] = w;
  }
  __syncthreads();
  return shared[0];
}
#elif defined(__OPENCL_CPP_VERSION__)
// The sum (maximum, NaN propagating) over the work-group (1-D, any size): OpenCL 2.0's work-group collectives,
// which `shared` is not needed for. Every work-item gets it.
template <class T, bool kMax>
__forceinline__ T block_reduce(T v, T* /*shared*/) {
  if (!kMax) return work_group_reduce_add(v);
  const T m = work_group_reduce_max(v);
  return work_group_any(v != v) ? T(NAN) : m;
}
#endif

}  // namespace hal_gpu
