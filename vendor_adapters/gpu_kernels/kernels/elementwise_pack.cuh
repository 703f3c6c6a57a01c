// An elementwise op over 16-byte packs: the op's math (elementwise_ops.cuh) applied at each element position
// of a pack, for the vectorized kernels of elementwise_vectorized.cu and multi_tensor.cu. CUDA only (Pack);
// elementwise_ops.cuh itself stays plain enough for the OpenCL build.
#pragma once

#include "kernels/elementwise_ops.cuh"
#include "kernels/family_support.cuh"

namespace hal_gpu::ew {

// x[k][j]: operand k's value at position j, in the compute type T; the results as storage type S.
template <int OP, class S, class T, int ARITY>
__device__ __forceinline__ Pack<S> apply_op_to_pack(const T (&x)[ARITY][Pack<S>::kSize], const Params<T>& p) {
  Pack<S> r;
#pragma unroll
  for (int j = 0; j < Pack<S>::kSize; ++j) {
    T v[ARITY];
#pragma unroll
    for (int k = 0; k < ARITY; ++k) v[k] = x[k][j];
    r.v[j] = from_acc<S>(apply_op<OP, T>(v, p));
  }
  return r;
}

}  // namespace hal_gpu::ew
