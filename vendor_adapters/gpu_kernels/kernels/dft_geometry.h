// The DFT op's problem (adapter_ops.def: DFT) read from an adapter launch, with the same checks for every runtime
// that runs the library's transform (dft.cu for CUDA and HIP, the SPIR-V planner's plan_dft.cpp). Plain host C++.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_gpu {

// The longest line (n and n_in) the launchers take: the kernels do n multiply-adds per output element (dft.cuh).
constexpr int32_t kMaxDftLength = 16384;

struct DftProblem {
  int64_t outer = 0, inner = 0;
  int32_t n_in = 0, n_out = 0, n = 0;  // the input's and output's line lengths, the signal's length
  bool complex_in = false, complex_out = false;
  int32_t sign = -1;
  float scale = 1.0f;
  int64_t outputs = 0;  // outer * n_out * inner: one work-item each
};

// False for what the kernels do not take: other operand counts, tensors that are not dense float32 of the
// op's shapes, a real input with a real output, a length of 0 or above kMaxDftLength, more than 2^31 elements.
bool dft_problem_of(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs, int32_t num_outputs,
                    const hal_scalar_t* scalars, int32_t num_scalars, DftProblem* problem);

}  // namespace hal_gpu
