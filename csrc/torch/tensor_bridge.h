// Moving between hal tensors and the CPU tensors that ATen's CPU kernels take.
//
// Two ways, chosen by the device:
//  - host-accessible memory (host reference device, unified memory): cpu_alias() is a CPU tensor over the
//    very same bytes, no copy;
//  - any other device: download() copies the bytes a tensor covers to host memory, and upload() writes
//    values back, for any layout (sliced, transposed, expanded): the covering byte range of the storage is
//    moved, so strides and offsets survive.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_hal {

bool is_hal(const at::Tensor& t);
bool is_host_accessible(c10::DeviceIndex device);

// Waits for the work queued on the current stream of hal:device, so the CPU may touch its memory.
void wait_for_current_stream(c10::DeviceIndex device);

// A CPU tensor over the memory of a host-accessible hal tensor: same sizes, strides and offset.
// Its storage does not own the memory; keep the hal tensor alive while it is used.
at::Tensor cpu_alias(const at::Tensor& hal_tensor);

// A CPU tensor with the values of any hal tensor, same sizes and strides (synchronous).
at::Tensor download(const at::Tensor& hal_tensor);
// Writes the values of `cpu_values` (broadcastable, any dtype) into `hal_destination` (synchronous).
void upload(const at::Tensor& hal_destination, const at::Tensor& cpu_values);

// A hal tensor with the geometry (sizes, strides, offset, dtype) of `like` over `storage`.
at::Tensor hal_tensor_over(c10::Storage storage, const at::Tensor& like);

// A new hal tensor on `device` holding the values of the CPU tensor `cpu_values` (dense layouts kept).
at::Tensor new_hal_tensor_from(const at::Tensor& cpu_values, c10::DeviceIndex device);

}  // namespace torch_hal
