// The generic strided elementwise kernel's arguments and walk, shared by elementwise.cu (every op of the library's
// elementwise math) and elementwise_special.cu (the special functions, kept in kernels of their own: their
// double-precision argument reductions and register use would otherwise weigh on every strided elementwise op).
// `Apply` computes one element: Apply::template of<NIN, T>(op, v, params).
#pragma once

#include <type_traits>

#include "kernels/elementwise_ops.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {

constexpr int kGenericThreads = 256;

template <class T, int NIN>
struct GenericArgs {
  Shape shape;
  Divisors div;          // of shape (the 32-bit kernel's)
  Operand ops[NIN + 1];  // the output first
  T value[NIN];          // scalar operands' values
  bool is_scalar[NIN];
  ew::Params<T> params;
  int32_t op;
};

// Each element: its operands' offsets (32-bit division below 2^31 elements), loads in the compute type T, the op,
// the store in the output's dtype.
template <class Apply, class T, int NIN, bool Wide>
__device__ __forceinline__ void generic_walk(int64_t n, const GenericArgs<T, NIN>& a) {
  using Index = std::conditional_t<Wide, int64_t, uint32_t>;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < static_cast<Index>(n); i += stride) {
    int64_t off[NIN + 1];
    if constexpr (Wide) offsets_of<NIN + 1>(i, a.shape, a.ops, off);
    else offsets_of32<NIN + 1>(i, a.shape, a.div, a.ops, off);
    T v[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) {
      const Operand& o = a.ops[k + 1];
      v[k] = a.is_scalar[k] ? a.value[k] : load_as<T>(o.base + off[k + 1] * o.elem_size, o.dtype);
    }
    const T r = Apply::template of<NIN, T>(a.op, v, a.params);
    store_from<T>(a.ops[0].base + off[0] * a.ops[0].elem_size, a.ops[0].dtype, r);
  }
}

// Launches the special functions' kernel (elementwise_special.cu) over these arguments.
template <class T, int NIN>
hal_status_t launch_special_functions(int64_t n, const GenericArgs<T, NIN>& a, int32_t device, cudaStream_t stream);

}  // namespace hal_gpu
