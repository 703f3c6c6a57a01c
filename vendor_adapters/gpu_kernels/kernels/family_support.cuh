// Small helpers shared by the kernel families: the op's scalars (converted by tensor_operands.h), storage-type
// conversions and 16-byte packs for templated kernels, warp/block sums, stream-ordered scratch memory, and
// launch geometry. Additive to tensor_access.cuh (which owns dtype loads/stores).
#pragma once

#include <cstdint>

#include "kernels/gpu_runtime.h"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {

// The op's own scalar k, as adapter.h numbers them (after any scalar operands' values, which come first).
inline const hal_scalar_t& op_scalar(const OpCall& call, int k, int scalar_operands = 0) {
  return call.scalars[scalar_operands + k];
}
// Scalars the caller must have passed: NOT_SUPPORTED (no side effect) when it passed fewer.
inline bool has_scalars(const OpCall& call, int count) { return call.scalars != nullptr && call.num_scalars >= count; }

// Storage type <-> accumulation type, for kernels templated on the storage type.
template <class Acc> __device__ __forceinline__ Acc to_acc(float v) { return static_cast<Acc>(v); }
template <class Acc> __device__ __forceinline__ Acc to_acc(double v) { return static_cast<Acc>(v); }
template <class Acc> __device__ __forceinline__ Acc to_acc(__half v) { return static_cast<Acc>(__half2float(v)); }
template <class Acc> __device__ __forceinline__ Acc to_acc(__nv_bfloat16 v) {
  return static_cast<Acc>(__bfloat162float(v));
}
template <class T> struct FromAcc;
template <> struct FromAcc<float> { template <class A> __device__ static float of(A v) { return static_cast<float>(v); } };
template <> struct FromAcc<double> { template <class A> __device__ static double of(A v) { return static_cast<double>(v); } };
template <> struct FromAcc<__half> { template <class A> __device__ static __half of(A v) { return __float2half(static_cast<float>(v)); } };
template <> struct FromAcc<__nv_bfloat16> {
  template <class A> __device__ static __nv_bfloat16 of(A v) { return __float2bfloat16(static_cast<float>(v)); }
};
template <class T, class A>
__device__ __forceinline__ T from_acc(A v) { return FromAcc<T>::of(v); }

// kSize elements of storage type S in one 16-byte access (vectorized loads and stores).
template <class S>
struct alignas(16) Pack {
  static constexpr int kSize = 16 / static_cast<int>(sizeof(S));
  S v[kSize];
};

// Sums over a warp (every lane gets the total) and over a block (thread 0's result is broadcast through
// shared memory; every thread gets it). `shared` holds at least 32 values. Fixed shapes of reduction,
// so results are deterministic run to run.
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

// A 1-D grid for `n` work items with grid-stride loops (grid.x capped so it never exceeds limits).
inline unsigned grid_for(int64_t n, int threads, int64_t max_blocks = 65536LL * 8) {
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
}

}  // namespace hal_gpu
