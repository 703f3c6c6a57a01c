// The counter-based generator of the random ops, once for every runtime: Philox4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011), written from the published algorithm, and the ways
// its words become values. The CUDA/HIP kernels (random.cu) and the SPIR-V ones (../../spirv_kernels/kernels/
// random.cl) draw element i from counter offset + i with key seed, so one seed gives the same values on every
// device and launch configuration.
#pragma once

#include "kernels/gpu_runtime.h"
#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

namespace hal_gpu {

struct Words {
  uint32_t x, y, z, w;
};

__device__ __forceinline__ Words philox4x32_10(uint64_t counter, uint64_t key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;  // round multipliers
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;  // key schedule increments
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    const uint32_t hi0 = __umulhi(kMul0, c0), lo0 = kMul0 * c0;
    const uint32_t hi1 = __umulhi(kMul1, c2), lo1 = kMul1 * c2;
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return Words{c0, c1, c2, c3};
}

__device__ __forceinline__ uint64_t join(uint32_t hi, uint32_t lo) { return (static_cast<uint64_t>(hi) << 32) | lo; }
// [0, 1) from 24 bits.
__device__ __forceinline__ float unit_float(uint32_t r) { return static_cast<float>(r >> 8) * 0x1.0p-24f; }

// A standard normal float from Box-Muller, z = sqrt(-2 ln u1) cos(2 pi u2), with u1 in (0, 1] so the logarithm
// stays finite.
__device__ __forceinline__ float normal_float(const Words& r) {
  const float u1 = static_cast<float>((r.x >> 8) + 1) * 0x1.0p-24f;
  const float u2 = unit_float(r.y);
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

}  // namespace hal_gpu
