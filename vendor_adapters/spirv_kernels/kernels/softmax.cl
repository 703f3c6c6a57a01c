// SOFTMAX, LOG_SOFTMAX and their backward over any dimension of contiguous float32, float16 or bfloat16 tensors
// (the halves accumulated in float32, as on CUDA), for the runtimes that take SPIR-V. The math is the kernel
// library's (softmax_math.cuh, the same line walk the CUDA and HIP kernels run); here a work-group takes one line
// (a row, or a column `inner` apart) and reduces across its work-items with OpenCL's work-group collectives, which
// CUDA has no equivalent of.
#include "softmax_kernels.h"

using hal_gpu::bfloat16_bits;
using hal_gpu::float16_bits;

SOFTMAX_KERNEL(float, float, f32)
SOFTMAX_KERNEL(float16_bits, float, f16)
SOFTMAX_KERNEL(bfloat16_bits, float, bf16)
