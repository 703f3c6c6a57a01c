// The adapter's native kernels: which family owns an op id, and the launch entry points of the table.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_nvidia {

hal_status_t op_supported(int32_t device, hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors);
hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars);

}  // namespace hal_nvidia
