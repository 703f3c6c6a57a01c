// out = scale * src, or out = 0 without src: the c term of a GEMM (beta * c) before cuBLAS adds a b to it.
#pragma once

#include "op_call.h"

namespace hal_gpu {

// `src` has out's ndim and shape with any strides (0 on broadcast dimensions: an addmm bias [N] expanded to
// [M, N]); both share one floating dtype (f16, bf16, f32, f64). Queued on `stream`.
hal_status_t scale_into(const hal_tensor_t& out, const hal_tensor_t* src, double scale, int32_t device,
                        cudaStream_t stream);

}  // namespace hal_gpu
