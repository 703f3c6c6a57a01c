// Dropout's draw, once for every runtime: which of four consecutive elements are kept, from one Philox call
// (philox.cuh) whose four words each decide one element, so a mask costs a quarter of the Philox rounds that
// an element-per-counter draw (BERNOULLI) does. Element 4q + k is kept where unit_float(word k of counter
// offset + q) < p_keep.
#pragma once

#include "kernels/philox.cuh"

namespace hal_gpu {

struct KeepQuad {
  bool keep[4];
};

__device__ __forceinline__ KeepQuad dropout_keep(uint64_t seed, uint64_t offset, int64_t quad, float p_keep) {
  const Words r = philox4x32_10(offset + static_cast<uint64_t>(quad), seed);
  KeepQuad q;
  q.keep[0] = unit_float(r.x) < p_keep;
  q.keep[1] = unit_float(r.y) < p_keep;
  q.keep[2] = unit_float(r.z) < p_keep;
  q.keep[3] = unit_float(r.w) < p_keep;
  return q;
}

// y = x * keep * scale in the compute type: a dropped NaN stays NaN (0 * NaN), as in ATen's CUDA kernel.
template <class T>
__device__ __forceinline__ T dropout_value(T x, bool keep, T scale) {
  return x * static_cast<T>(keep ? 1 : 0) * scale;
}

}  // namespace hal_gpu
