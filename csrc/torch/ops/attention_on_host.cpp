#include "ops/attention_on_host.h"

#include <ATen/ops/_scaled_dot_product_flash_attention_for_cpu.h>
#include <ATen/ops/_scaled_dot_product_flash_attention_for_cpu_backward.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "dispatch/tensor_bridge.h"
#include "ops/attention_mask.h"
#include "ops/attention_result.h"

namespace torch_hal::native {
namespace {

bool is_cpu_flash_dtype(at::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16;
}

// The mask as the CPU kernels take it: additive, in the query's dtype (they refuse bool masks and masks of
// another dtype), broadcast to [B, H, L, S] as a view. Converted before broadcasting, so only the mask's own
// elements are converted.
std::optional<at::Tensor> cpu_flash_mask(const std::optional<at::Tensor>& mask, const at::Tensor& q, int64_t S) {
  if (!mask.has_value() || !mask->defined()) return std::nullopt;
  at::Tensor m = additive_mask(*mask, q.options());
  if (m.scalar_type() != q.scalar_type()) m = m.to(q.scalar_type());
  m = m.expand({q.size(0), q.size(1), q.size(2), S});
  // The kernels step through a mask row by row and read each row's elements one after another.
  return m.stride(3) == 1 || m.size(3) == 1 ? m : m.contiguous();
}

// ATen's CPU flash kernels on CPU tensors. The output goes into `out` (any layout of the query's shape); the
// log-sum-exp is returned contiguous, as the meta function lays it out (the kernels write it [B, L, H]).
at::Tensor cpu_flash_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const std::optional<at::Tensor>& mask, bool is_causal, std::optional<double> scale,
                             const at::Tensor& out) {
  auto [result, lse] = at::_scaled_dot_product_flash_attention_for_cpu(
      q, k, v, /*dropout_p=*/0.0, is_causal, cpu_flash_mask(mask, q, k.size(2)), scale);
  out.copy_(result);
  return lse.contiguous();
}

void cpu_flash_backward(const at::Tensor& grad_out, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                        const at::Tensor& out, const at::Tensor& lse, const std::optional<at::Tensor>& mask,
                        bool is_causal, std::optional<double> scale, const at::Tensor& dq, const at::Tensor& dk,
                        const at::Tensor& dv) {
  auto [gq, gk, gv] = at::_scaled_dot_product_flash_attention_for_cpu_backward(
      grad_out, q, k, v, out, lse, /*dropout_p=*/0.0, is_causal, cpu_flash_mask(mask, q, k.size(2)), scale);
  dq.copy_(gq);
  dk.copy_(gk);
  dv.copy_(gv);
}

std::optional<at::Tensor> defined_or_none(const at::Tensor& t) {
  return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt;
}

// A host-accessible hal mask as the CPU tensor over its memory; none stays none.
std::optional<at::Tensor> alias_of(const std::optional<at::Tensor>& mask) {
  return mask.has_value() && mask->defined() ? std::optional<at::Tensor>(cpu_alias(*mask)) : std::nullopt;
}

void check_cpu_flash_arguments(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double dropout_p) {
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
              "torch_hal: the fused attention on CPU tensors takes [batch, heads, seq, dim] inputs");
  const char* why = host_attention_declines(q, k, v, dropout_p);
  TORCH_CHECK(why == nullptr, "torch_hal: the fused attention on CPU tensors cannot take these arguments: ", why);
}

// The overrideable ops on CPU tensors, for compiled host graphs (see attention_on_host.h); their results laid
// out as the meta functions say, as on hal.
using ForwardResult = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, c10::SymInt, c10::SymInt, at::Tensor,
                                 at::Tensor, at::Tensor>;

ForwardResult overrideable_on_cpu(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const std::optional<at::Tensor>& attn_bias, double dropout_p, bool is_causal,
                                  bool /*return_debug_mask*/, std::optional<double> scale) {
  check_cpu_flash_arguments(q, k, v, dropout_p);
  at::Tensor out = empty_laid_out_like(q);
  at::Tensor lse = cpu_flash_forward(q, k, v, attn_bias, is_causal, scale, out);
  const at::Tensor no_rng = at::empty({}, q.options().dtype(at::kLong));
  return ForwardResult(out, lse, at::Tensor(), at::Tensor(), c10::SymInt(q.size(2)), c10::SymInt(k.size(2)), no_rng,
                       no_rng, at::Tensor());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> overrideable_backward_on_cpu(
    const at::Tensor& grad_out, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const at::Tensor& attn_bias, std::array<bool, 4> grad_input_mask, const at::Tensor& out,
    const at::Tensor& logsumexp, const at::Tensor& /*cum_seq_q*/, const at::Tensor& /*cum_seq_k*/, int64_t /*max_q*/,
    int64_t /*max_k*/, double dropout_p, bool is_causal, const at::Tensor& /*philox_seed*/,
    const at::Tensor& /*philox_offset*/, std::optional<double> scale) {
  check_cpu_flash_arguments(q, k, v, dropout_p);
  TORCH_CHECK(!grad_input_mask[3], "torch_hal: the fused attention computes no gradient of its mask");
  at::Tensor dq = empty_laid_out_like(q), dk = empty_laid_out_like(k), dv = empty_laid_out_like(v);
  cpu_flash_backward(grad_out, q, k, v, out, logsumexp, defined_or_none(attn_bias), is_causal,
                     scale, dq, dk, dv);
  return {dq, dk, dv, at::Tensor()};
}

}  // namespace

const char* host_attention_declines(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double dropout_p) {
  const at::ScalarType t = q.scalar_type();
  if (!is_cpu_flash_dtype(t) || k.scalar_type() != t || v.scalar_type() != t) {
    return "its dtype is not float32, float64, float16 or bfloat16 (the same for query, key and value)";
  }
  if (dropout_p > 0.0) return "it has dropout, which ATen's CPU flash-attention kernels do not take";
  return nullptr;
}

std::pair<at::Tensor, at::Tensor> host_attention_forward(const at::Tensor& q, const at::Tensor& k,
                                                         const at::Tensor& v, const std::optional<at::Tensor>& mask,
                                                         bool is_causal, std::optional<double> scale) {
  const c10::DeviceIndex device = q.device().index();
  at::Tensor out = empty_laid_out_like(q);
  wait_for_current_stream(device);
  const at::Tensor lse =
      cpu_flash_forward(cpu_alias(q), cpu_alias(k), cpu_alias(v), alias_of(mask), is_causal, scale, cpu_alias(out));
  return {out, new_hal_tensor_from(lse, device)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> host_attention_backward(
    const at::Tensor& grad_out, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& out,
    const at::Tensor& logsumexp, const std::optional<at::Tensor>& mask, bool is_causal, std::optional<double> scale) {
  const c10::DeviceIndex device = q.device().index();
  at::Tensor dq = empty_laid_out_like(q), dk = empty_laid_out_like(k), dv = empty_laid_out_like(v);
  wait_for_current_stream(device);
  cpu_flash_backward(cpu_alias(grad_out), cpu_alias(q), cpu_alias(k), cpu_alias(v), cpu_alias(out),
                     cpu_alias(logsumexp), alias_of(mask), is_causal, scale, cpu_alias(dq), cpu_alias(dk),
                     cpu_alias(dv));
  return {dq, dk, dv};
}

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("_scaled_dot_product_fused_attention_overrideable", TORCH_FN(overrideable_on_cpu));
  m.impl("_scaled_dot_product_fused_attention_overrideable_backward", TORCH_FN(overrideable_backward_on_cpu));
}

}  // namespace torch_hal::native
