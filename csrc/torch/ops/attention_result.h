// The results of the attention ops (attention_ops.cpp's tiled kernels, attention_by_gemm.cpp's GEMMs):
// laid out as PyTorch's meta functions lay them out, written by kernels that take only some layouts.
#pragma once

#include <ATen/ExpandUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>

namespace torch_hal::native {

// A dense tensor of `like`'s shape whose dims are laid out in the order of `like`'s strides: what PyTorch's
// meta functions of the attention ops return (their torch.empty_like). ATen's eager empty_like differs for
// inputs that are not dense (the query, key and value a fused QKV projection leaves are slices): it returns
// them contiguous, and a compiled graph's size and stride checks then fail.
inline at::Tensor empty_laid_out_like(const at::Tensor& like) {
  return at::empty_strided(like.sizes(), at::infer_dense_strides(like.sizes(), like.strides()), like.options());
}

// A result laid out like `like` (as the meta function allocates it), and the tensor the kernels write: the
// result itself where `kernels_take` it, else a contiguous one that finish() copies over.
struct AttentionResult {
  at::Tensor result, written;
  template <class Predicate>
  AttentionResult(const at::Tensor& like, Predicate kernels_take)
      : result(empty_laid_out_like(like)),
        written(kernels_take(result) ? result : at::empty_like(like, at::MemoryFormat::Contiguous)) {}
  void finish() {
    if (!written.is_same(result)) result.copy_(written);
  }
};

}  // namespace torch_hal::native
