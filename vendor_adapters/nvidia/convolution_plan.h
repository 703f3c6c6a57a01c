// A convolution as an execution plan of cuDNN's graph API, made once per problem and run with the data
// pointers of each call, as torch.cuda runs its convolutions (its cuDNN v8 API path with a plan cache). A plan
// run costs a variant pack and cudnnBackendExecute on the host; the legacy API pays for heuristics and plan
// building inside every call.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "convolution_problem.h"
#include "kernels/library_handle.h"

namespace hal_nvidia {

using BackendDescriptor = hal_gpu::LibraryHandle<CudnnBackendStruct>;

struct ConvPlan {
  std::vector<BackendDescriptor> parts;  // the tensors, operation, graph and engine config the plan was made from
  BackendDescriptor plan;
  int64_t workspace_bytes = 0;
};

// The plan for the problem, from the first of cuDNN's heuristic engine configurations that builds (those that
// would compute f32 in TF32 where TF32 is off are passed over). NOT_SUPPORTED, with the reason recorded,
// where none does.
hal_status_t make_convolution_plan(const CudnnApi& api, cudnnHandle_t handle, hal_op_t op, const ConvProblem& p,
                                   std::unique_ptr<ConvPlan>* out);

// Queues the plan on the handle's stream with the tensors of one call.
hal_status_t run_convolution_plan(const CudnnApi& api, cudnnHandle_t handle, const ConvPlan& plan,
                                  const ConvTensors& t, void* workspace);

}  // namespace hal_nvidia
