// What every GPU adapter's GEMM family (its launch_gemm over cuBLAS, rocBLAS, ...) does before its BLAS:
// plan the call, and finish the problems that need no BLAS.
#pragma once

#include "kernels/gemm_plan.h"
#include "kernels/op_call.h"

namespace hal_gpu {

// Plans `call` (HAL_OP_MATMUL or HAL_OP_GEMM) into *plan, and finishes it when no BLAS call is needed: an
// empty problem, or K == 0 (a b is all zeros, so out = beta c, or 0). Returns the error (recorded with
// `vendor`, e.g. "AMD", in the message), or SUCCESS with *done telling whether anything is left to do.
hal_status_t plan_or_finish_gemm(const OpCall& call, const char* vendor, GemmPlan* plan, bool* done);

}  // namespace hal_gpu
