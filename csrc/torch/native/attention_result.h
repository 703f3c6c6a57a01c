// The results of the attention ops (attention_ops.cpp's tiled kernels, attention_by_gemm.cpp's GEMMs):
// laid out as PyTorch's meta functions lay them out, written by kernels that take only some layouts.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>

namespace torch_hal::native {

// A result laid out like `like` (empty_like, as the meta function allocates it), and the tensor the kernels
// write: the result itself where `kernels_take` it, else a contiguous one that finish() copies over.
struct AttentionResult {
  at::Tensor result, written;
  template <class Predicate>
  AttentionResult(const at::Tensor& like, Predicate kernels_take)
      : result(at::empty_like(like)),
        written(kernels_take(result) ? result : at::empty_like(like, at::MemoryFormat::Contiguous)) {}
  void finish() {
    if (!written.is_same(result)) result.copy_(written);
  }
};

}  // namespace torch_hal::native
