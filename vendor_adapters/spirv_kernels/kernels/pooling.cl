// The pooling family for the runtimes that take SPIR-V, in float32, float16 and bfloat16 (accumulated in float32,
// as on CUDA): MAX_POOL2D, AVG_POOL2D, ADAPTIVE_AVG_POOL2D, ADAPTIVE_MAX_POOL2D and their backward ops, contiguous or
// channels-last. The entry points around the kernel library's pooling bodies (gpu_kernels/kernels/pooling.cuh, the
// same source the CUDA and HIP kernels compile): a work-item per element, of y forward and of x backward (the
// gradients gather). plan_pooling.cpp launches them over the problem that read_pooling() read, as the CUDA and HIP
// launch does.
#include "pooling_kernels.h"

using hal_gpu::bfloat16_bits;
using hal_gpu::float16_bits;

POOLING_KERNELS(float, float, f32)
POOLING_KERNELS(float16_bits, float, f16)
POOLING_KERNELS(bfloat16_bits, float, bf16)
