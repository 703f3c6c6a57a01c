// HAL_OP_CONVOLUTION and its two backward ops in float32 for the runtimes that take SPIR-V: the entry points
// around the kernel library's convolution body (gpu_kernels/kernels/convolution_gemm.cuh, the same source the
// CUDA and HIP kernels compile), with its tiles in local memory. plan_convolution.cpp launches them over
// kConvThreads-wide work-groups, one per GEMM tile and group.
#include "kernels/gpu_runtime.h"
#include "kernels/convolution_gemm.cuh"

#define HAL_CONVOLUTION_KERNEL(name, direction)                                                             \
  kernel void name(global const float* in0, global const float* in1, global float* out,                    \
                   hal_gpu::ConvGeometry g) {                                                              \
    local float tile_a[hal_gpu::kConvTileK * hal_gpu::kConvTileM];                                          \
    local float tile_b[hal_gpu::kConvTileK * hal_gpu::kConvTileN];                                          \
    hal_gpu::convolution_block<float, float, hal_gpu::ConvDirection::direction>(g, in0, in1, out, tile_a,   \
                                                                                tile_b);                    \
  }

HAL_CONVOLUTION_KERNEL(convolution_forward_f32, Forward)
HAL_CONVOLUTION_KERNEL(convolution_backward_input_f32, BackwardInput)
HAL_CONVOLUTION_KERNEL(convolution_backward_weight_f32, BackwardWeight)
