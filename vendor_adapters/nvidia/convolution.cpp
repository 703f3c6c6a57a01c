// HAL_OP_CONVOLUTION and its two backward ops through cuDNN, as torch.cuda runs them: an execution plan of
// cuDNN's graph API made once per problem (convolution_plan.h), or, where the graph API builds none, the
// legacy API (convolution_legacy.h). What cuDNN is absent for, or declines, answers NOT_SUPPORTED with
// nothing queued, so the core falls back.
#include "convolution.h"

#include <memory>
#include <string>
#include <vector>

#include "adapter_state.h"
#include "convolution_legacy.h"
#include "convolution_plan.h"
#include "convolution_problem.h"
#include "cuda_status.h"
#include "cudnn_library.h"
#include "kernels/adapter_services.h"

namespace hal_nvidia {

hal_status_t launch_convolution(const hal_gpu::OpCall& call) {
  ConvProblem p;
  ConvTensors t;
  if (!parse_convolution(call, &p, &t)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "the NVIDIA adapter's convolution does not take these tensors (op " +
                                              std::to_string(call.op) + ")");
  }
  std::string why;
  const CudnnApi* api = cudnn(&why);
  if (!api) return fail(HAL_STATUS_NOT_SUPPORTED, why);
  CudnnContext& context = device_state(call.device).cudnn;
  auto lock = context.lock();
  cudnnHandle_t handle = nullptr;
  if (hal_status_t s = context.handle(*api, call.device, call.stream, &handle); s) return s;
  const std::vector<int64_t> key = convolution_key(call.op, p);
  bool known = false;
  const ConvPlan* plan = context.plan(key, &known);
  if (!known) {
    std::unique_ptr<ConvPlan> made;
    // A problem the graph API declines is remembered without a plan: the legacy route takes it from then on.
    if (hal_status_t s = make_convolution_plan(*api, handle, call.op, p, &made); s && s != HAL_STATUS_NOT_SUPPORTED) {
      return s;
    }
    plan = made.get();
    context.remember_plan(key, std::move(made));
  }
  if (!plan) return run_legacy_convolution(*api, handle, context, call, p, t, key);
  hal_gpu::StreamScratch workspace(call.device, call.stream, static_cast<size_t>(plan->workspace_bytes));
  if (!workspace.ok()) {
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "convolution: no device memory for the " +
                                                     std::to_string(plan->workspace_bytes) +
                                                     " bytes of workspace of cuDNN's plan for this problem");
  }
  return run_convolution_plan(*api, handle, *plan, t, workspace.as<void>());
}

}  // namespace hal_nvidia
