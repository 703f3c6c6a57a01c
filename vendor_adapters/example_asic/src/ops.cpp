#include "ops.h"

#include <string>

#include "adapter_state.h"
#include "kernels.h"

namespace example_asic {

// ---- native kernels ----------------------------------------------------------------------------

hal_status_t op_supported(int32_t /*device*/, hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors) {
  return kernel_supported(op, tensors, num_tensors);
}

hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t /*stream*/, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars) {
  return guarded("launch_op", [&]() -> hal_status_t {
    std::string error;
    DeviceArena& memory = arena(device);
    const hal_status_t st = run_kernel(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars,
                                       [&memory](const void* p, uint64_t n) { return memory.contains(p, n); }, &error);
    return st == HAL_STATUS_SUCCESS ? st : fail(st, error);
  });
}

}  // namespace example_asic
