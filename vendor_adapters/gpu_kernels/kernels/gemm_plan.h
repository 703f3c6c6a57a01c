// Planning a GEMM: from the ABI's row-major, strided tensors to one strided-batched call of a column-major
// BLAS (cuBLAS on NVIDIA, rocBLAS on AMD: both take the same operands), or, for 4-D operands whose two batch
// dims do not merge into one stride, one pointer-array batched call (GemmPlan::group_size). Pure logic, no
// vendor calls, so every layout decision is in one place for every GPU adapter.
#pragma once

#include <cstdint>
#include <string>

#include "torch_hal/adapter.h"

namespace hal_gpu {

enum class GemmType { F16, BF16, F32, F64 };

struct BlasOperand {
  const void* data = nullptr;
  bool transpose = false;  // the BLAS's op T rather than N
  int64_t ld = 0;
  int64_t batch_stride = 0;  // elements; 0 broadcasts one matrix over the batch
  int64_t group_stride = 0;  // elements, with GemmPlan::group_size: the stride of a 4-D operand's first dim
};

struct GemmPlan {
  GemmType type = GemmType::F32;
  int64_t batch = 0, m = 0, n = 0, k = 0;  // the problem as the BLAS sees it (column-major)
  BlasOperand first, second;              // the BLAS's A and B
  void* out = nullptr;
  int64_t ld_out = 0;
  int64_t batch_stride_out = 0;
  // 0: one batch stride per operand (the strided-batched call). Otherwise the operands are 4-D [B1, B2, ..]
  // whose two batch dims do not merge into one stride (the heads of attention's query, key and value sliced
  // out of a fused projection), and matrix i of an operand starts at
  //   group_stride * (i / group_size) + batch_stride * (i % group_size),   group_size = B2:
  // a BLAS call that takes an array of matrix pointers (cublasGemmBatchedEx). An adapter without one answers
  // NOT_SUPPORTED for such a plan.
  int64_t group_size = 0;
  int64_t group_stride_out = 0;
  double alpha = 1, beta = 0;             // beta is 0 when there is no c to add
  const hal_tensor_t* c = nullptr;        // c to add (beta != 0), or nullptr
  bool c_is_out = false;                  // c is the output itself: the BLAS reads it in place
  bool empty = false;                     // M, N or B is 0: nothing to compute
  // c's first element when c is a bias vector that cuBLASLt's BIAS epilogue can add in the GEMM itself
  // (addmm's 1-D bias, see plan_gemm), else nullptr. c stays set either way: the two-kernel path that
  // copies c into the output first is the fallback when cuBLASLt declines.
  const void* bias = nullptr;
};

// Fills `plan` for HAL_OP_MATMUL or HAL_OP_GEMM (on SUCCESS, the fields above; `bias` only where the
// epilogue computes exactly what the two-kernel path would). Returns SUCCESS, NOT_SUPPORTED (dtype or layout this path
// does not take) or INVALID_ARGUMENT (inconsistent shapes), with the reason in `why`.
hal_status_t plan_gemm(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                       int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, GemmPlan* plan,
                       std::string* why);

}  // namespace hal_gpu
