// NLL_LOSS and its backward for float32, float16 and bfloat16 logp (accumulated in float32) and int64 targets, for
// the runtimes that take SPIR-V: loss_kernels.h's kernels; float64's are float64.cl's.
#include "loss_kernels.h"

using hal_gpu::bfloat16_bits;
using hal_gpu::float16_bits;

NLL_KERNELS(float, float, f32)
NLL_KERNELS(float16_bits, float, f16)
NLL_KERNELS(bfloat16_bits, float, bf16)
