// Attention through the adapter's GEMMs (cuBLAS, rocBLAS, ...) around its ATTENTION_SOFTMAX kernel: the
// score matrices of a few (batch, head) pairs at a time in a workspace, instead of the tiled kernels'
// streaming over keys. Measured on the H100 (PyTorch 2.11): the vendor's GEMMs make this 2-20x faster than
// the SIMT tiled kernels for every shape tried, at the cost of the workspace (freed after each call; it
// goes through the caching allocator, so memory statistics count it).
//
// attention_ops.cpp chooses between the two per call: this route where the adapter has ATTENTION_SOFTMAX
// and the score matrices of one (batch, head) fit TORCH_HAL_ATTENTION_WORKSPACE_MB (default 256; 0 turns
// the route off), the tiled kernels (memory linear in the sequence) otherwise.
#pragma once

#include <ATen/core/Tensor.h>

#include <tuple>

namespace torch_hal::native {

// Dropout's draws: the Philox (seed, offset) of the keep-mask's element 0. Element i of the [B, H, L, S]
// mask (row-major) draws counter offset + i (HAL_OP_BERNOULLI), so the backward redraws the forward's mask
// chunk by chunk from these two numbers, which the forward returns as SDPA's philox_seed/philox_offset.
struct DropoutDraws {
  uint64_t seed = 0, offset = 0;
};

// One attention call's operands as attention_ops.cpp has checked them: q [B, Hq, L, D], k and v
// [B, Hk, S, D] with Hq a multiple of Hk, bias undefined or [B, Hq, L, S] (broadcast strides allowed);
// dropout_p in [0, 1).
struct AttentionOperands {
  const at::Tensor& q;
  const at::Tensor& k;
  const at::Tensor& v;
  const at::Tensor& bias;
  double scale;
  bool causal;
  double dropout_p = 0;
};

// The score matrices per (batch, head) that each pass keeps at once: the forward's scores (and dropout's
// mask), the backward's scores and their gradient (and the mask).
inline int score_matrices(bool backward, double dropout_p) { return (backward ? 2 : 1) + (dropout_p > 0 ? 1 : 0); }

// Whether the GEMM route takes this call: the adapter of q's device has ATTENTION_SOFTMAX, and `matrices`
// score matrices of one (batch, head) fit the workspace limit.
bool gemm_attention_applies(const at::Tensor& q, int64_t keys, int matrices);

// The workspace limit: TORCH_HAL_ATTENTION_WORKSPACE_MB (MiB, a fraction allowed; 0 turns the route off),
// 256 MiB by default. A value that does not parse raises, naming the variable.
size_t attention_workspace_limit_bytes();

// The limit on the probabilities one forward saves for its backward: TORCH_HAL_ATTENTION_SAVED_MB (MiB, a
// fraction allowed; 0 saves none: every backward recomputes them), 64 MiB by default.
size_t attention_saved_probabilities_limit_bytes();

// out (laid out as q) and lse [B, Hq, L] (f32), as HAL_OP_ATTENTION's; with dropout, its draws (taken from
// hal's default generator). The probabilities are saved with lse where they fit the limit above and the
// workspace's.
std::tuple<at::Tensor, at::Tensor, DropoutDraws> gemm_attention_forward(const AttentionOperands& a);

// dq, dk, dv, laid out as q, k, v. The probabilities are those the forward saved with `logsumexp` (its
// result), or recomputed; dropout's mask is redrawn from `draws`.
std::tuple<at::Tensor, at::Tensor, at::Tensor> gemm_attention_backward(const AttentionOperands& a,
                                                                       const at::Tensor& grad_out,
                                                                       const at::Tensor& logsumexp,
                                                                       const DropoutDraws& draws);

}  // namespace torch_hal::native
