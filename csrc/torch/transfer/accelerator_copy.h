// copy_ between a hal tensor and a tensor of the process's other accelerator (torch.cuda's CUDA or ROCm device):
// code being ported holds both, and both may be the very same GPU.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_hal {

// Whether copy_accelerator_tensor serves this pair: one side hal, the other a CUDA (or ROCm) tensor.
bool is_accelerator_copy(const at::Tensor& src, const at::Tensor& dst);

// Copies src into dst (same sizes, any dtypes and layouts). Where the other accelerator's device is a GPU that a
// hal device also drives (nvidia or amd adapter, same device number), the bytes move device to device on hal's
// stream; otherwise through host memory.
void copy_accelerator_tensor(const at::Tensor& src, const at::Tensor& dst);

}  // namespace torch_hal
