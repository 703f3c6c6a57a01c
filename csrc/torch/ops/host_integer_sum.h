// sum of integer and bool tensors on host-accessible memory, without an int64 copy of the input.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace torch_hal::native {

// ATen's CPU sum converts an integer or bool input to its int64 accumulation type in one piece before
// reducing (CUDA's kernel converts on load). Run in place on hal memory, that temporary would come from
// the device's memory: 8 bytes per element of a bool tensor, so `(pred == y).sum()` on a large tensor ran
// out of device memory. This computes the same sum slice by slice, with a bounded temporary in ordinary
// CPU memory. nullopt where it does not apply (the adapter has native kernels, memory the CPU cannot
// address, a floating input, another accumulation dtype, a small input): the op's usual path runs.
std::optional<at::Tensor> host_integer_sum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                           std::optional<at::ScalarType> dtype);

}  // namespace torch_hal::native
