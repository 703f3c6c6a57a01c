// The batch norm family's problem: BATCH_NORM and BATCH_NORM_BACKWARD over x [N, C, S] in either dense layout of
// adapter.h (channels-first or channels-last), and what the op asks for. Read on the host from an adapter launch by
// every runtime that runs the library's batch norm (batch_norm.cu for CUDA and HIP, the SPIR-V planner's
// plan_batch_norm.cpp), with the same checks. Plain host C++.
#pragma once

#include <cstdint>

#include "kernels/tensor_operands.h"
#include "torch_hal/adapter.h"

namespace hal_gpu {

struct BatchNormProblem {
  bool backward = false;
  bool training = false;
  int64_t N = 0, C = 0, S = 0;
  int64_t R = 0;  // N * S: the elements of a channel
  bool channels_last = false;
  DType dtype = DType::Unsupported;  // x's; the accumulation type is float64 for float64, float32 otherwise
  double momentum = 0, eps = 0;      // forward
  // Backward: whether dx is wanted (and has elements), and whether the sums of dy and dy * (x - mean) are needed
  // (for dx in training, dweight, dbias). Neither: nothing to compute.
  bool want_dx = false, need_sums = false;
};

// The operands of a batch norm op (adapter_ops.h states them) as a problem. False, with `why` set, for what the
// kernels do not take: unexpected operands, x not a dense [N, C, S], tensors that do not match x, parameters that
// are not [C] (saved statistics: dense, of the accumulation type), running statistics not updated in place, a
// training batch without elements, an evaluation without running statistics, a dtype other than float32,
// float16, bfloat16 and float64. C == 0 is read as a problem with nothing to compute.
bool read_batch_norm(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                     int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                     BatchNormProblem* problem, const char** why);

}  // namespace hal_gpu
