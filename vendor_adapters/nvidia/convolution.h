// The adapter's convolution family (adapter_ops.def): cuDNN first, the kernel library's convolution for the rest
// (convolution.cpp).
#pragma once

#include "kernels/op_call.h"

namespace hal_nvidia {

// HAL_OP_CONVOLUTION, _BACKWARD_INPUT, _BACKWARD_WEIGHT through cuDNN; where cuDNN is absent or declines the
// problem, through hal_gpu::launch_convolution (which answers NOT_SUPPORTED, with nothing queued, for what it
// does not take either).
hal_status_t launch_convolution(const hal_gpu::OpCall& call);

}  // namespace hal_nvidia
