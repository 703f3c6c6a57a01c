// Whether an op's output may be written by a kernel that reads `input`: adapter.h allows an output to
// overlap an input only as the very same tensor.
#pragma once

#include <ATen/MemoryOverlap.h>
#include <ATen/core/Tensor.h>

namespace torch_hal::native {

// ATen's get_overlap_status answers TooHard for any operand that is not dense (a strided slice), even when
// the two live in different storages; tensors of different storages cannot overlap, so that is checked first.
inline at::MemOverlapStatus output_overlap(const at::Tensor& output, const at::Tensor& input) {
  if (!output.is_alias_of(input)) return at::MemOverlapStatus::No;
  return at::get_overlap_status(output, input);
}

// No overlap, or the very same tensor: what a native launch accepts.
inline bool launchable_overlap(const at::Tensor& output, const at::Tensor& input) {
  const auto status = output_overlap(output, input);
  return status == at::MemOverlapStatus::No || status == at::MemOverlapStatus::Full;
}

}  // namespace torch_hal::native
