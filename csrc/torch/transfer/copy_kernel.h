// Device-side copies through the adapter's strided copy kernel (HAL_OP_COPY): any dtype conversion and
// any layout, used by copy_ between and into hal tensors and by ops built from copies (cat).
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_hal::native {

// dst = src (broadcast to dst's shape) on dst's device. Both on one hal device. False when the adapter
// has no kernel for it (then the caller copies another way).
bool copy_on_device(const at::Tensor& dst, const at::Tensor& src);

}  // namespace torch_hal::native
