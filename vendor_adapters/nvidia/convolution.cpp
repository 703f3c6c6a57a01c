// HAL_OP_CONVOLUTION and its two backward ops through cuDNN, as torch.cuda runs them: an execution plan of
// cuDNN's graph API made once per problem (convolution_plan.h), or, where the graph API builds none, the
// legacy API (convolution_legacy.h). What cuDNN is absent for, or declines (with nothing queued), runs on the
// kernel library's implicit-GEMM convolution (gpu_kernels/kernels/convolution.cu) instead of the CPU fallback.
#include "convolution.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
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
namespace {

// TORCH_HAL_TRACE_OPS (the torch_hal switch that prints each op's path) also names the convolutions that take
// the legacy route: they cost about 100 us more host time per call.
bool trace_ops() {
  static const bool on = [] {
    const char* v = std::getenv("TORCH_HAL_TRACE_OPS");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0 && std::strcmp(v, "false") != 0;
  }();
  return on;
}

std::string describe(hal_op_t op, const ConvProblem& p) {
  std::ostringstream out;
  out << "op " << op << ", dtype " << p.dtype << (p.tf32 ? " (TF32)" : "") << ", groups " << p.groups;
  const auto list = [&out](const char* name, const int* values, int n) {
    out << ", " << name << " [";
    for (int i = 0; i < n; ++i) out << (i ? "," : "") << values[i];
    out << "]";
  };
  list("x", p.x, p.ndim);
  list("x strides", p.x_strides, p.ndim);
  list("w", p.w, p.ndim);
  list("w strides", p.w_strides, p.ndim);
  list("y strides", p.y_strides, p.ndim);
  list("alignment", p.alignment, 3);
  return out.str();
}

hal_status_t run_with_cudnn(const hal_gpu::OpCall& call) {
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
    if (!plan && trace_ops()) {
      std::cerr << "torch_hal (NVIDIA adapter): " << last_error() << "; cuDNN's legacy API runs it (" << describe(call.op, p)
                << ")" << std::endl;
    }
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

}  // namespace

hal_status_t launch_convolution(const hal_gpu::OpCall& call) {
  const hal_status_t s = run_with_cudnn(call);
  if (s != HAL_STATUS_NOT_SUPPORTED) return s;
  if (trace_ops()) {
    std::cerr << "torch_hal (NVIDIA adapter): " << last_error() << "; the kernel library's convolution runs it"
              << std::endl;
  }
  return hal_gpu::launch_convolution(call);
}

}  // namespace hal_nvidia
