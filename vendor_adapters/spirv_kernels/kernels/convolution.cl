// HAL_OP_CONVOLUTION and its two backward ops in float32, float16 and bfloat16 (accumulated in float32) for the
// runtimes that take SPIR-V: convolution_kernels.h's entry points; float64's are float64.cl's. plan_convolution.cpp
// launches them over kConvThreads-wide work-groups, one per GEMM tile and group.
#include "convolution_kernels.h"

using hal_gpu::bfloat16_bits;
using hal_gpu::float16_bits;

CONVOLUTION_KERNELS(float, float, f32)
CONVOLUTION_KERNELS(float16_bits, float, f16)
CONVOLUTION_KERNELS(bfloat16_bits, float, bf16)
