// Every kernel of the adapter is launched through launch_kernel<kernel>(...) instead of <<<...>>>.
//
// Why: for the small ops of eager PyTorch the launch itself is most of an op's time, and the runtime's
// launch (what <<<...>>> and cudaLaunchKernel do) costs measurably more than the driver's cuLaunchKernel
// underneath it: on the H100 machine, 4.07 against 3.67 us per launch on a non-blocking stream (means of six
// interleaved passes, benchmarks/RESULTS.md). So each kernel's driver handle (CUfunction) is
// resolved once per device and cached in a static of its own instantiation, and the launch calls the driver
// directly. Where that cannot be done (no context current on this thread yet, no handle for this device),
// the runtime launches the kernel instead, which also reports any error in the runtime's own terms.
#pragma once

#include <atomic>
#include <tuple>
#include <utility>

#include "kernels/gpu_runtime.h"
#include "kernels/op_call.h"

namespace hal_gpu {
namespace launch_detail {

// A kernel's driver handle per device (nullptr: not resolved yet).
struct FunctionCache {
  std::atomic<void*> per_device[kMaxCachedDevices] = {};
};

// Launches `kernel` with its argument pointers `args` on `stream`, through the driver where possible.
hal_status_t launch(FunctionCache& cache, const void* kernel, const char* name, int32_t device, dim3 grid, dim3 block,
                    size_t shared_bytes, cudaStream_t stream, void** args);

template <class F>
struct KernelParameters;
template <class... P>
struct KernelParameters<void (*)(P...)> {
  using Values = std::tuple<P...>;  // the arguments converted to the kernel's parameter types, as <<<>>> does
};

}  // namespace launch_detail

// Launches `Kernel` on `stream` of `device` (the current device) with `args`; SUCCESS or the launch's
// error, recorded for get_last_error() with `name`.
template <auto Kernel, class... Args>
hal_status_t launch_kernel(const char* name, int32_t device, dim3 grid, dim3 block, size_t shared_bytes,
                           cudaStream_t stream, Args&&... args) {
  static launch_detail::FunctionCache cache;  // one per kernel instantiation
  typename launch_detail::KernelParameters<decltype(Kernel)>::Values values{std::forward<Args>(args)...};
  return std::apply(
      [&](auto&... value) {
        void* pointers[] = {static_cast<void*>(&value)..., nullptr};
        return launch_detail::launch(cache, reinterpret_cast<const void*>(Kernel), name, device, grid, block,
                                     shared_bytes, stream, pointers);
      },
      values);
}

}  // namespace hal_gpu
