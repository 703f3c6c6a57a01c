// A convolution through cuDNN's legacy API (convolution_legacy.cpp): the adapter's second route.
#pragma once

#include <cstdint>
#include <vector>

#include "convolution_problem.h"
#include "cudnn_context.h"

namespace hal_nvidia {

// Runs the problem on the handle's stream; call with the context locked. `key` is convolution_key's.
hal_status_t run_legacy_convolution(const CudnnApi& api, cudnnHandle_t handle, CudnnContext& context,
                                    const hal_gpu::OpCall& call, const ConvProblem& p, const ConvTensors& t,
                                    const std::vector<int64_t>& key);

}  // namespace hal_nvidia
