// The special functions' elementwise kernels (elementwise_special.cuh): the generic strided walk of
// elementwise.cu (elementwise_generic.cuh) around the special functions alone. elementwise.cu hands them their
// launches, already described (dtypes, compute type, scalars, coalesced dimensions); they live apart because their
// double-precision math (argument reductions, series loops) would raise the register use and stack frame of the
// kernel every other strided elementwise op runs in.

#include "kernels/elementwise_generic.cuh"
#include "kernels/elementwise_special.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"

namespace hal_gpu {
namespace {

struct ApplySpecial {
  template <int NIN, class T>
  __device__ __forceinline__ static T of(int32_t op, const T* v, const ew::Params<T>& p) {
    return ew::apply_special_runtime<NIN, T>(op, v, p.mode);
  }
};

template <class T, int NIN, bool Wide>
__global__ void __launch_bounds__(kGenericThreads) special_kernel(int64_t n, GenericArgs<T, NIN> a) {
  generic_walk<ApplySpecial, T, NIN, Wide>(n, a);
}

}  // namespace

template <class T, int NIN>
hal_status_t launch_special_functions(int64_t n, const GenericArgs<T, NIN>& a, int32_t device, cudaStream_t stream) {
  const unsigned grid = grid_for(n, kGenericThreads, device);
  if (n < (int64_t{1} << 31)) {
    return launch_kernel<special_kernel<T, NIN, false>>("special function", device, grid, kGenericThreads, 0, stream,
                                                        n, a);
  }
  return launch_kernel<special_kernel<T, NIN, true>>("special function", device, grid, kGenericThreads, 0, stream, n,
                                                     a);
}

// The compute types and arities elementwise.cu launches with (integer compute types never reach the special
// functions, which are float-only, but the generic launcher is instantiated for them).
#define HAL_SPECIAL_LAUNCHER(T, NIN) \
  template hal_status_t launch_special_functions<T, NIN>(int64_t, const GenericArgs<T, NIN>&, int32_t, cudaStream_t);
HAL_SPECIAL_LAUNCHER(float, 1)
HAL_SPECIAL_LAUNCHER(float, 2)
HAL_SPECIAL_LAUNCHER(float, 3)
HAL_SPECIAL_LAUNCHER(double, 1)
HAL_SPECIAL_LAUNCHER(double, 2)
HAL_SPECIAL_LAUNCHER(double, 3)
HAL_SPECIAL_LAUNCHER(int64_t, 1)
HAL_SPECIAL_LAUNCHER(int64_t, 2)
HAL_SPECIAL_LAUNCHER(int64_t, 3)
#undef HAL_SPECIAL_LAUNCHER

}  // namespace hal_gpu
