// scaled_dot_product_attention on host-accessible hal devices that have no attention kernels of their own
// (the host reference device): ATen's CPU flash-attention kernels run on CPU views of the same memory, as SDPA
// on CPU tensors runs them. Without this route SDPA on such a device takes the math path (a materialized mask,
// bmm, softmax), which made a GPT-style forward 1.33x slower than on CPU tensors.
//
// The same kernels are registered as the CPU kernels of the overrideable fused-attention ops
// (attention_on_host.cpp): a compiled graph of the host device (torch_hal/compile/host_graph.py) runs on CPU
// views of hal memory and calls those ops on CPU tensors. SDPA on CPU tensors never chooses them by itself.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <tuple>
#include <utility>

namespace torch_hal::native {

// Why ATen's CPU flash kernels cannot take these arguments (which the shared checks of attention_ops.cpp have
// already passed), or nullptr when they can.
const char* host_attention_declines(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double dropout_p);

// The attention's output (laid out like the query, as PyTorch's meta function lays it out) and log-sum-exp,
// hal tensors on the query's device. `mask` as SDPA's: bool (true keeps) or additive, broadcastable to
// [B, H, L, S]; grouped-query heads as given; no scale means SDPA's 1/sqrt(head dim).
std::pair<at::Tensor, at::Tensor> host_attention_forward(const at::Tensor& q, const at::Tensor& k,
                                                         const at::Tensor& v, const std::optional<at::Tensor>& mask,
                                                         bool is_causal, std::optional<double> scale);

// The gradients of query, key and value (each laid out like its input), from the forward's output and
// log-sum-exp.
std::tuple<at::Tensor, at::Tensor, at::Tensor> host_attention_backward(
    const at::Tensor& grad_out, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& out,
    const at::Tensor& logsumexp, const std::optional<at::Tensor>& mask, bool is_causal,
    std::optional<double> scale);

}  // namespace torch_hal::native
