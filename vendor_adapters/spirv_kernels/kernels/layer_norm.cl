// LAYER_NORM and LAYER_NORM_BACKWARD over contiguous float32, float16 or bfloat16 rows (float32 statistics, as
// CUDA's), for the runtimes that take SPIR-V: the entry points around the kernel library's layer norm bodies
// (gpu_kernels/kernels/layer_norm_rows.cuh, the same source the CUDA and HIP kernels compile), the column sums'
// tiles in local memory. plan_layer_norm.cpp launches a work-group per row (forward, dx) and a (kColumnTile,
// kRowLanes) work-group per column tile that sums every row into dweight and dbias (one chunk: no second pass, no
// scratch memory). The row sums are work-group collectives (accumulate.cuh), which take no shared memory: the
// bodies' `shared` is null here.
#include "layer_norm_kernels.h"

using hal_gpu::bfloat16_bits;
using hal_gpu::float16_bits;

LAYER_NORM_KERNELS(float, float, f32)
LAYER_NORM_KERNELS(float16_bits, float, f16)
LAYER_NORM_KERNELS(bfloat16_bits, float, bf16)
