// The adapter's convolution ops (adapter.h, 1000..1099), through cuDNN (convolution.cpp).
#pragma once

#include "kernels/op_call.h"

namespace hal_nvidia {

// HAL_OP_CONVOLUTION, _BACKWARD_INPUT, _BACKWARD_WEIGHT: NOT_SUPPORTED, with nothing queued, where cuDNN is
// absent or declines the problem.
hal_status_t launch_convolution(const hal_gpu::OpCall& call);

inline bool is_convolution_op(hal_op_t op) { return op >= 1000 && op < 1100; }

}  // namespace hal_nvidia
