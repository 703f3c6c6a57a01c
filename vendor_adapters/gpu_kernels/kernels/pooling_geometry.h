// The pooling family's problem as its kernel bodies (pooling.cuh) read it: which pooling, the sizes and layout of
// x [N, C, H, W] and y [N, C, OH, OW] (spatial_index.cuh's Geometry) and the window. Read on the host from an
// adapter launch by every runtime that runs the library's pooling kernels (pooling.cu for CUDA and HIP, the SPIR-V
// planner's plan_pooling.cpp), and passed to the kernels by value.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

#include "kernels/gpu_runtime.h"
#include "kernels/spatial_index.cuh"

namespace hal_gpu {
namespace pooling {

enum class Kind : int32_t { Max, Avg, AdaptiveAvg, AdaptiveMax };

// The window of MAX_POOL2D and AVG_POOL2D (the op's scalars). A by-value kernel argument on every compiler:
// fixed-width fields only (OpenCL takes no bool in one), which x86-64, NVIDIA, AMD and spir64 lay out alike.
struct Window {
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
  uint8_t count_include_pad;  // a bool
  int64_t divisor;            // 0: none
};

}  // namespace pooling
}  // namespace hal_gpu

#if !defined(__OPENCL_CPP_VERSION__)
#include "torch_hal/adapter.h"

namespace hal_gpu {
namespace pooling {

// A pooling launch in the kernels' terms. `total`: the elements the launch gives a thread (work-item) each, y's
// forward and x's backward (the gradients gather); 0 where there is nothing to compute.
struct Launch {
  Kind kind = Kind::Max;
  bool backward = false;
  bool has_indices = false;  // inputs[1] (backward) or outputs[1] (forward) are int64 indices
  spatial::Geometry geometry{};
  Window window{};
  int64_t total = 0;
};

// The operands of a pooling op (adapter_ops.h states them) as a Launch. False, with `why` set, for what the
// kernels do not take: unexpected operands or window, shapes that disagree, tensors not all in one dense layout
// (contiguous or channels-last), a dtype other than float32, float16, bfloat16 and float64 (int64 indices).
bool read_pooling(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                  int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, Launch* launch,
                  const char** why);

}  // namespace pooling
}  // namespace hal_gpu
#endif
