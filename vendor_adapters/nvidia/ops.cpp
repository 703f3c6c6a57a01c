#include "ops.h"

#include <string>

#include "adapter_state.h"
#include "convolution.h"
#include "cuda_status.h"
#include "current_device.h"
#include "kernels/op_call.h"
#include "kernels/op_families.h"

namespace hal_nvidia {
namespace {

using namespace hal_gpu;  // the kernel library's families (kernels/op_call.h)

hal_status_t no_kernel(hal_op_t op) {
  return fail(HAL_STATUS_NOT_SUPPORTED, "the NVIDIA adapter has no kernel for op " + std::to_string(op));
}

// The kernel library's families, and convolutions, which are the adapter's own (cuDNN).
Launcher launcher_of(hal_op_t op) {
  return family_of(op) == Family::convolution ? launch_convolution : library_launcher(op);
}

}  // namespace

// A coarse answer by op id: the family decides dtypes and layouts when launch_op asks it, and answers
// NOT_SUPPORTED (with no side effect) for what it does not handle, so the core still falls back.
hal_status_t op_supported(int32_t /*device*/, hal_op_t op, const hal_tensor_t* /*tensors*/, int32_t /*num_tensors*/) {
  return launcher_of(op) ? HAL_STATUS_SUCCESS : no_kernel(op);
}

hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars) {
  const Launcher launcher = launcher_of(op);
  if (!launcher) return no_kernel(op);
  OpCall call{op, device, nullptr, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars};
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  if (hal_status_t s = resolve_stream(device, stream, &call.stream); s != HAL_STATUS_SUCCESS) return s;
  return launcher(call);
}

}  // namespace hal_nvidia
