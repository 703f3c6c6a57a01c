// The out= form of an op that is computed functionally: one way to write a result into `out`.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>

#include <optional>

namespace torch_hal::native {

// Writes `result` into `out`, resized as ATen resizes an out= tensor. False (the op then takes ATen's route)
// where there is no result, and where the dtypes differ: whether that casts or raises is ATen's to say.
inline bool write_out(const std::optional<at::Tensor>& result, at::Tensor& out) {
  if (!result.has_value() || result->scalar_type() != out.scalar_type()) return false;
  at::native::resize_output(out, result->sizes());
  out.copy_(*result);
  return true;
}

}  // namespace torch_hal::native
