// The adapter's convolution family (adapter_ops.def), through cuDNN (convolution.cpp).
#pragma once

#include "kernels/op_call.h"

namespace hal_nvidia {

// HAL_OP_CONVOLUTION, _BACKWARD_INPUT, _BACKWARD_WEIGHT: NOT_SUPPORTED, with nothing queued, where cuDNN is
// absent or declines the problem.
hal_status_t launch_convolution(const hal_gpu::OpCall& call);

}  // namespace hal_nvidia
