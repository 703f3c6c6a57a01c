// SDPA's boolean attention masks as the scores to add, for every attention route (attention_ops.cpp's
// kernels and GEMMs, attention_on_host.cpp's CPU flash kernels).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/full.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>

#include <limits>

namespace torch_hal::native {

// A bool mask (true keeps) as 0 where kept and -inf where masked, in `options`' dtype and device, with the
// mask's own shape; any other mask as it is.
inline at::Tensor additive_mask(const at::Tensor& mask, const at::TensorOptions& options) {
  if (mask.scalar_type() != at::kBool) return mask;
  return at::where(mask, at::zeros({}, options), at::full({}, -std::numeric_limits<double>::infinity(), options));
}

}  // namespace torch_hal::native
