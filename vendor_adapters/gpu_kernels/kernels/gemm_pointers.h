// The matrix pointers of a grouped GEMM plan (GemmPlan::group_size != 0) for a BLAS's pointer-array batched
// call (cublasGemmBatchedEx): written on the device by one small kernel, in stream order, so no host copy or
// synchronization is needed.
#pragma once

#include "gemm_plan.h"
#include "op_call.h"

namespace hal_gpu {

// pointers[0 .. batch) are the BLAS's first operand's matrices, [batch .. 2 batch) its second's, [2 batch ..
// 3 batch) the output's; `pointers` is device memory for 3 * plan.batch pointers. Queued on `stream`.
hal_status_t write_gemm_pointers(const GemmPlan& plan, void** pointers, int32_t device, cudaStream_t stream);

}  // namespace hal_gpu
