// The convolution kernels of the SPIR-V modules (convolution.cl: float32, float16 and bfloat16 accumulated in
// float32; float64.cl: float64): the entry points around the kernel library's convolution body
// (gpu_kernels/kernels/convolution_gemm.cuh, the same source the CUDA and HIP kernels compile), with its tiles in
// local memory. CONVOLUTION_KERNELS(T, Acc, suffix) defines convolution_forward_<suffix>,
// convolution_backward_input_<suffix> and convolution_backward_weight_<suffix>. C++ for OpenCL only.
#pragma once

#include "kernels/convolution_gemm.cuh"
#include "kernels/gpu_runtime.h"

#define HAL_CONVOLUTION_KERNEL(T, Acc, name, direction)                                                                \
  kernel void name(global const T* in0, global const T* in1, global T* out, hal_gpu::ConvGeometry g) {                 \
    local Acc tile_a[hal_gpu::kConvTileK * hal_gpu::kConvTileM];                                                       \
    local Acc tile_b[hal_gpu::kConvTileK * hal_gpu::kConvTileN];                                                       \
    hal_gpu::convolution_block<T, Acc, hal_gpu::ConvDirection::direction>(g, in0, in1, out, tile_a, tile_b);           \
  }

#define CONVOLUTION_KERNELS(T, Acc, suffix)                                                                            \
  HAL_CONVOLUTION_KERNEL(T, Acc, convolution_forward_##suffix, Forward)                                                \
  HAL_CONVOLUTION_KERNEL(T, Acc, convolution_backward_input_##suffix, BackwardInput)                                   \
  HAL_CONVOLUTION_KERNEL(T, Acc, convolution_backward_weight_##suffix, BackwardWeight)
