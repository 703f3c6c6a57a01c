// The portability header of the GPU kernel library: the one place that knows whether these sources are
// being compiled by nvcc for NVIDIA, by hipcc/clang for AMD, or by clang as C++ for OpenCL (SPIR-V). The sources keep CUDA's spelling, the lingua
// franca of GPU kernels; for HIP this header includes HIP's headers and maps the few names that differ.
// Runtime API calls (memory, streams, launches) are not mapped: the library makes none of its own, it asks
// its adapter (adapter_services.h), which reaches its vendor's runtime however it loads it.
#pragma once

#if defined(__OPENCL_CPP_VERSION__)
#include "kernels/opencl_portability.h"
#elif defined(HAL_GPU_HOST_ONLY)
// Plain C++ host code that reads the library's constexpr tables and host helpers (elementwise_params.h) without
// a GPU compiler: device qualifiers vanish, and the device math names the templates refer to are declared.
#include <cmath>
#include <cstdint>
#define __device__
#define __host__
#define __forceinline__ inline
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
using std::isinf;
using std::isnan;
#elif defined(HAL_GPU_HIP)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>

#include <cstdint>

typedef hipStream_t cudaStream_t;
typedef hipError_t cudaError_t;
// HIP's bfloat16 type of ROCm 5.x, with conversions under CUDA's names (for hipcc's passes only: host
// files of the adapter include this header for the types alone).
typedef hip_bfloat16 __nv_bfloat16;
#if defined(__HIPCC__)
__host__ __device__ inline float __bfloat162float(hip_bfloat16 v) { return static_cast<float>(v); }
__host__ __device__ inline hip_bfloat16 __float2bfloat16(float v) { return hip_bfloat16(v); }  // rounds to nearest even
__host__ __device__ inline hip_bfloat16 __float2bfloat16_rn(float v) { return hip_bfloat16(v); }

// HIP 5.x has no atomicAdd for 16-bit floats: a compare-and-swap loop on the aligned 32-bit word that holds
// the value, replacing only its half of the word.
template <class T, class ToFloat, class FromFloat>
__device__ inline T atomic_add_16bit(T* address, T value, ToFloat to_float, FromFloat from_float) {
  auto* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(address) & ~uintptr_t{3});
  const unsigned int shift = (reinterpret_cast<uintptr_t>(address) & 2) ? 16u : 0u;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    unsigned short bits = static_cast<unsigned short>((assumed >> shift) & 0xFFFFu);
    T current;
    __builtin_memcpy(&current, &bits, sizeof(bits));
    const T sum = from_float(to_float(current) + to_float(value));
    __builtin_memcpy(&bits, &sum, sizeof(bits));
    const unsigned int updated = (assumed & ~(0xFFFFu << shift)) | (static_cast<unsigned int>(bits) << shift);
    old = atomicCAS(word, assumed, updated);
  } while (old != assumed);
  unsigned short previous = static_cast<unsigned short>((old >> shift) & 0xFFFFu);
  T result;
  __builtin_memcpy(&result, &previous, sizeof(previous));
  return result;
}
__device__ inline __half atomicAdd(__half* address, __half value) {
  return atomic_add_16bit(address, value, [](__half v) { return __half2float(v); },
                          [](float v) { return __float2half(v); });
}
__device__ inline hip_bfloat16 atomicAdd(hip_bfloat16* address, hip_bfloat16 value) {
  return atomic_add_16bit(address, value, [](hip_bfloat16 v) { return static_cast<float>(v); },
                          [](float v) { return hip_bfloat16(v); });
}
#endif  // __HIPCC__
// HIP's shuffles take no lane mask: every lane of the wavefront takes part, as with CUDA's full mask.
#define __shfl_xor_sync(mask, value, lane_mask) __shfl_xor((value), (lane_mask))
#define __shfl_sync(mask, value, src_lane, width) __shfl((value), (src_lane), (width))
// A CUDA 11.7 hint for by-value kernel parameters; HIP has no such qualifier.
#define __grid_constant__
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif

namespace hal_gpu {

// The kernels' reductions work in logical warps of 32 lanes. On AMD's 64-wide wavefronts (CDNA: gfx90a,
// gfx942) that is still exact: an xor-shuffle with a lane mask below 32 never leaves its half-wavefront, so
// each half reduces on its own, and the block-level step combines blockDim.x / 32 partials either way.
// Kernels that need the hardware width use kHardwareWarpSize.
constexpr int kLogicalWarpSize = 32;
#if defined(HAL_GPU_HIP) && defined(__AMDGCN_WAVEFRONT_SIZE)
constexpr int kHardwareWarpSize = __AMDGCN_WAVEFRONT_SIZE;
#elif defined(HAL_GPU_HIP)
constexpr int kHardwareWarpSize = 64;  // host pass of a HIP build: the widest the device passes may use
#else
constexpr int kHardwareWarpSize = 32;
#endif

}  // namespace hal_gpu

// The thread model, spelled once per compiler, for kernels whose body is shared with the SPIR-V side (a family's
// .cuh, included by its .cu and by spirv_kernels/kernels/<family>.cl): a block (OpenCL: work-group) of threads
// (work-items), the block's index in the grid (NDRange) and a thread's index in its block, and the barrier that
// makes the block's shared (local) memory writes visible to all its threads. Only the kernel entry points differ:
// `__global__` with `__shared__` tiles here, `kernel` with `local` tiles there.
// block_threads(d) and grid_blocks(d) are CUDA's blockDim and gridDim (OpenCL: the work-group's size and the
// number of work-groups); a grid-stride loop runs from grid_thread() in steps of grid_threads(). atomic_add(p, v)
// adds v to *p in global memory atomically (float32 on every compiler; OpenCL has no float atomics in its core, so a
// compare-and-swap loop there).
namespace hal_gpu {
#if defined(__OPENCL_CPP_VERSION__)
__forceinline__ uint32_t block_index(int d) { return static_cast<uint32_t>(get_group_id(d)); }
__forceinline__ uint32_t thread_index(int d) { return static_cast<uint32_t>(get_local_id(d)); }
__forceinline__ uint32_t block_threads(int d) { return static_cast<uint32_t>(get_local_size(d)); }
__forceinline__ uint32_t grid_blocks(int d) { return static_cast<uint32_t>(get_num_groups(d)); }
__forceinline__ int64_t grid_thread() { return static_cast<int64_t>(get_global_id(0)); }
__forceinline__ int64_t grid_threads() { return static_cast<int64_t>(get_global_size(0)); }
__forceinline__ void block_barrier() { barrier(CLK_LOCAL_MEM_FENCE); }
// p points to global memory: the runtimes' atomics take a global pointer, not a generic one (Intel's CPU runtime has
// no generic atomic_cmpxchg).
__forceinline__ void atomic_add(float* p, float v) {
  volatile global uint32_t* word = reinterpret_cast<volatile global uint32_t*>(to_global(p));
  uint32_t seen = *word, expected;
  do {
    expected = seen;
    seen = atomic_cmpxchg(word, expected, as_uint(as_float(expected) + v));
  } while (seen != expected);
}
#elif defined(__CUDACC__) || defined(__HIPCC__)
__device__ __forceinline__ unsigned block_index(int d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z; }
__device__ __forceinline__ unsigned thread_index(int d) {
  return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z;
}
__device__ __forceinline__ unsigned block_threads(int d) {
  return d == 0 ? blockDim.x : d == 1 ? blockDim.y : blockDim.z;
}
__device__ __forceinline__ unsigned grid_blocks(int d) { return d == 0 ? gridDim.x : d == 1 ? gridDim.y : gridDim.z; }
__device__ __forceinline__ long long grid_thread() {
  return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
}
__device__ __forceinline__ long long grid_threads() { return static_cast<long long>(gridDim.x) * blockDim.x; }
__device__ __forceinline__ void block_barrier() { __syncthreads(); }
template <class T>
__device__ __forceinline__ void atomic_add(T* p, T v) { atomicAdd(p, v); }
#endif
}  // namespace hal_gpu
