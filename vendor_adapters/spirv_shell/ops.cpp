// launch_op for the SPIR-V adapters, in the adapter's namespace (spirv_traits.h): the device's kernels
// (plan_launcher.h) on what the hal stream is to the runtime (stream_of). A failure with a reason is recorded;
// NOT_SUPPORTED without one sends the op to the core's counted fallback quietly.
#include <string>

#include "spirv_traits.h"

hal_status_t hal_spirv_shell::adapter::launch_op(int32_t device, hal_op_t op, hal_stream_t stream,
                                                 const hal_tensor_t* inputs, int32_t num_inputs, hal_tensor_t* outputs,
                                                 int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars) {
  return guarded("launch_op", [&]() -> hal_status_t {
    std::string error;
    const hal_status_t st = dev(device).kernels->launch(stream_of(device, stream), op, inputs, num_inputs, outputs,
                                                        num_outputs, scalars, num_scalars, &error);
    return st == HAL_STATUS_SUCCESS || error.empty() ? st : fail(st, error);
  });
}
