// The simulated ASIC's native kernels, float32 only: ADD (out = a + alpha * b), MUL, RELU and 2-D MATMUL,
// on strided tensors, following adapter.h's op conventions:
//  - strides are in elements; data + byte_offset is element 0;
//  - every input of an elementwise op has the output's ndim and shape; a broadcast dim has stride 0;
//  - an input with data == NULL and ndim == 0 is a scalar operand: its value is the next entry of
//    `scalars`, in input order, before the op's own scalars (ADD's alpha, optional, default 1);
//  - anything else (another op, dtype or layout) is HAL_STATUS_NOT_SUPPORTED, with nothing touched, so
//    that the core runs the op another way.
#pragma once

#include <functional>
#include <string>

#include "torch_hal/adapter.h"

namespace example_asic {

// Whether device memory [ptr, ptr + bytes) belongs to the device the kernel runs on.
using RangeCheck = std::function<bool(const void* ptr, uint64_t bytes)>;

// op_supported's answer: SUCCESS when `op` is native and every tensor (inputs, then outputs) is float32
// or a scalar operand; NOT_SUPPORTED otherwise.
hal_status_t kernel_supported(hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors);

// Validates the call completely (op, dtypes, shapes, scalar count, memory ranges), then runs the kernel.
// On failure nothing was written and `*error` says why.
hal_status_t run_kernel(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                        int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                        const RangeCheck& on_device, std::string* error);

}  // namespace example_asic
