// Native ops on AMD GPUs: the kernel library's families (kernels/op_families.h) on the op's stream; GEMM's
// family is gemm.cpp (rocBLAS).
#include <string>

#include "adapter_context.h"
#include "kernels/op_call.h"
#include "kernels/op_families.h"

namespace hal_amd {
namespace {

hal_status_t no_kernel(hal_op_t op) {
  return fail(HAL_STATUS_NOT_SUPPORTED, "the AMD adapter has no kernel for op " + std::to_string(op));
}

}  // namespace

hal_status_t op_supported(int32_t /*device*/, hal_op_t op, const hal_tensor_t* /*tensors*/, int32_t /*num_tensors*/) {
  return hal_gpu::library_launcher(op) ? HAL_STATUS_SUCCESS : no_kernel(op);
}

hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs, int32_t num_inputs,
                       hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars) {
  const hal_gpu::Launcher launcher = hal_gpu::library_launcher(op);
  if (!launcher) return no_kernel(op);
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  hal_gpu::OpCall call{op, device, reinterpret_cast<cudaStream_t>(stream), inputs, num_inputs, outputs, num_outputs,
                       scalars, num_scalars};
  return launcher(call);
}

}  // namespace hal_amd
