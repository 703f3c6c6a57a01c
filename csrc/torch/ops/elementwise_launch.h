// Elementwise ops through TensorIterator, as ATen's CUDA kernels do it: the iterator broadcasts, picks the
// common dtype, allocates outputs and coalesces dimensions; the adapter's kernel converts each operand's
// dtype on the fly (no temporaries), so what reaches it is one shape and one stride list per operand.
#pragma once

#include <ATen/TensorIterator.h>

#include <initializer_list>

#include "torch_hal/adapter.h"

namespace torch_hal::native {

// How the iterator was built: ToCommonDtype for iterators that promote their inputs to a common dtype
// (binary ops, comparisons, clamp...). Their inputs then reach the kernel as ATen's kernel would see them,
// converted to the common dtype first where that changes values (elementwise_launch.cpp). Iterators without
// promotion (where, masked_fill, any-dtype outputs) pass their operands as they are.
enum class Promotion { None, ToCommonDtype };

// Launches `op` over every operand of `iter` (outputs first, as the iterator orders them); CPU scalars
// become scalar operands of the common dtype. `op_scalars` are the op's own scalars (adapter.h).
// False when the adapter cannot run it; true also for empty iterations (nothing to do).
bool launch_elementwise(at::TensorIteratorBase& iter, hal_op_t op, std::initializer_list<c10::Scalar> op_scalars = {},
                        Promotion promotion = Promotion::None);

}  // namespace torch_hal::native
