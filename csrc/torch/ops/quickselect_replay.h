// The index kthvalue's CPU kernel returns among equal values, for a device that has only whole-tensor ops.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_hal::native {

// Replays ATen's CPU quickselect (median-of-three pivot, Hoare partition) on every row of `rows` at once and
// returns, per row, the original index of the element it leaves at position k - 1: where the row has ties, the
// CPU's choice among them. `sorted` and `order` are the rows' stable ascending sort (NaN last), [rows, n].
at::Tensor quickselect_indices(const at::Tensor& sorted, const at::Tensor& order, int64_t k);

}  // namespace torch_hal::native
