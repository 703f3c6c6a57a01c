// One native op launch as the GPU kernel library's families receive it, and the families' entry points.
// launch_op (each GPU adapter's ops.cpp) routes an op id to the family that owns it (op_families.h); each family returns
// HAL_STATUS_NOT_SUPPORTED, having done nothing, for ops, dtypes or layouts it does not handle, so the core
// falls back. Plain C++ (no vendor headers) so that host-compiled files can include it.
#pragma once

#include <cstdint>
#include <string>

#include "torch_hal/adapter.h"

// The vendor's stream handle, under CUDA's name in both builds (see gpu_runtime.h).
#if defined(HAL_GPU_HIP)
typedef struct ihipStream_t* cudaStream_t;
#else
typedef struct CUstream_st* cudaStream_t;
#endif

namespace hal_gpu {

// Per-device caches of the kernel families (SM counts, kernel handles) have this many slots; devices past
// it still work, uncached.
constexpr int kMaxCachedDevices = 64;

struct OpCall {
  hal_op_t op;
  int32_t device;
  cudaStream_t stream;  // the stream to launch on (never the legacy default: the adapter resolves NULL)
  const hal_tensor_t* inputs;
  int32_t num_inputs;
  hal_tensor_t* outputs;
  int32_t num_outputs;
  const hal_scalar_t* scalars;
  int32_t num_scalars;
};

// Each kernel family's entry point, launch_<family>, declared from adapter_ops.def's family list: the
// library's own families (LIBRARY) in their .cu files, the GEMM family in each adapter's gemm.cpp (its BLAS).
// VENDOR families (convolution) are the adapter's own business.
#define HAL_GPU_DECLARE_LIBRARY(family) hal_status_t launch_##family(const OpCall& call);
#define HAL_GPU_DECLARE_VENDOR(family)
#define HAL_FAMILY(family, provider) HAL_GPU_DECLARE_##provider(family)
#include "torch_hal/adapter_ops.def"
#undef HAL_GPU_DECLARE_LIBRARY
#undef HAL_GPU_DECLARE_VENDOR

// The call's operand counts as a family takes them: exactly `inputs` and `outputs` tensors, and at least
// `scalars` scalars (none needed where it is 0). A family answers NOT_SUPPORTED where they differ.
inline bool has_operands(const OpCall& call, int inputs, int outputs, int scalars = 0) {
  return call.num_inputs == inputs && call.num_outputs == outputs &&
         (scalars == 0 || (call.scalars != nullptr && call.num_scalars >= scalars));
}

// Records the per-thread message that the adapter's get_last_error() returns; returns `status`.
hal_status_t fail(hal_status_t status, const char* message);
inline hal_status_t fail(hal_status_t status, const std::string& message) { return fail(status, message.c_str()); }

}  // namespace hal_gpu
