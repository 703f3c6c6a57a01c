// GEMM of float32, float16 and bfloat16 (accumulated in float32, as cuBLAS's default) for the runtimes that take
// SPIR-V: gemm_kernels.h's kernel; float64's is float64.cl's.
#include "gemm_kernels.h"

using hal_gpu::bfloat16_bits;
using hal_gpu::float16_bits;

GEMM_KERNEL(float, float, f32, g.alpha, g.beta)
GEMM_KERNEL(float16_bits, float, f16, g.alpha, g.beta)
GEMM_KERNEL(bfloat16_bits, float, bf16, g.alpha, g.beta)
