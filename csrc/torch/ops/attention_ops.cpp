// scaled_dot_product_attention on hal through the adapter's fused attention (HAL_OP_ATTENTION and its
// backward), as PyTorch lets an out-of-tree device serve it: SDPA asks the device's _fused_sdp_choice_stub
// which backend to take, and "overrideable" sends it to _scaled_dot_product_fused_attention_overrideable,
// whose derivative is the _backward op registered here too.
//
// The fused op runs as GEMMs around a softmax kernel (attention_by_gemm.h) where the workspace allows, and as
// the tiled kernels (HAL_OP_ATTENTION) otherwise; on host-accessible devices without those kernels (the host
// reference device) it runs ATen's CPU flash-attention kernels in place (attention_on_host.h).
//
// The choice is the fused op wherever its route takes the arguments (and the user has not turned the
// overrideable backend off with torch.nn.attention.sdpa_kernel), and ATen's math path otherwise, said on
// stderr with the reason under TORCH_HAL_TRACE_OPS: dropout where the GEMM route's workspace is too small (or
// on the host route), a mask that requires grad, head dims above 256 where the GEMM route's workspace is too
// small, a value head dim other than the query's, symbolic shapes, and adapters without the kernels on devices
// that are not host-accessible.
#include <ATen/SDPBackend.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/transformers/attention.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <torch/library.h>

#include <cmath>
#include <iostream>

#include "dispatch/cpu_fallback.h"
#include "dispatch/native_first.h"
#include "dispatch/tensor_bridge.h"
#include "ops/attention_by_gemm.h"
#include "ops/attention_mask.h"
#include "ops/attention_on_host.h"
#include "ops/attention_result.h"
#include "runtime/hal_context.h"

namespace torch_hal::native {
namespace {

using Tensors4 = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;
using ForwardResult = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, c10::SymInt, c10::SymInt, at::Tensor,
                                 at::Tensor, at::Tensor>;

constexpr int64_t kMaxHeadDim = 256;  // the tiled kernels' limit (attention.cu)

bool is_kernel_dtype(at::ScalarType t) { return t == at::kFloat || t == at::kHalf || t == at::kBFloat16; }

// Whether the adapter of hal:index says it has the fused attention op.
bool adapter_has_attention(c10::DeviceIndex index) {
  if (!has_native_kernels(index)) return false;
  const hal::Device& dev = device(index);
  const hal_adapter_t& table = dev.table();
  if (table.op_supported == nullptr) return false;  // it could only be found out by launching
  return table.op_supported(dev.local_index, HAL_OP_ATTENTION, nullptr, 0) == HAL_STATUS_SUCCESS;
}

// Dropout and head dims above the tiled kernels' limit: what only the GEMM route (attention_by_gemm.h) takes.
bool needs_gemm_route(const at::Tensor& q, double dropout_p) { return dropout_p > 0.0 || q.size(3) > kMaxHeadDim; }

// Whether the fused op on this device runs ATen's CPU kernels in place (attention_on_host.h): host-accessible
// memory and no attention kernels in its adapter.
bool runs_attention_on_host(c10::DeviceIndex device) {
  return is_host_accessible(device) && !adapter_has_attention(device);
}

// Why the device's attention kernels cannot take these arguments (which math_path_reason's shared checks have
// passed), or nullptr when they can.
const char* kernels_decline(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double dropout_p) {
  if (!adapter_has_attention(q.device().index())) return "the device's adapter has no fused attention kernels";
  if (!is_kernel_dtype(q.scalar_type()) || k.scalar_type() != q.scalar_type() || v.scalar_type() != q.scalar_type()) {
    return "its dtype is not float32, float16 or bfloat16 (the same for query, key and value)";
  }
  if (needs_gemm_route(q, dropout_p) &&
      !gemm_attention_applies(q, k.size(2), score_matrices(/*backward=*/true, dropout_p))) {
    return "it has dropout or a head dim above 256, which only the GEMM route takes, and one head's scores do not "
           "fit that route's workspace (TORCH_HAL_ATTENTION_WORKSPACE_MB)";
  }
  return nullptr;
}

// Why the fused op cannot take these arguments, or nullptr when it can.
const char* math_path_reason(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const std::optional<at::Tensor>& mask, double dropout_p, bool enable_gqa) {
  if (!at::globalContext().userEnabledOverrideableSDP()) return "the overrideable backend is turned off (sdpa_kernel)";
  for (const at::Tensor* t : {&q, &k, &v}) {
    if (t->unsafeGetTensorImpl()->has_symbolic_sizes_strides()) return "its shapes are symbolic";
  }
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) return "its inputs are not [batch, heads, seq, dim]";
  if (q.size(0) != k.size(0) || v.size(0) != k.size(0) || k.size(1) != v.size(1) || k.size(2) != v.size(2)) {
    return "its key and value do not match the query's batch or each other";
  }
  if (q.size(3) != k.size(3) || v.size(3) != q.size(3)) return "its value head dim differs from the query's";
  if (q.size(1) != k.size(1) && (!enable_gqa || k.size(1) == 0 || q.size(1) % k.size(1) != 0)) {
    return "query and key head counts differ without enable_gqa";
  }
  if (q.numel() == 0 || k.size(2) == 0) return "it is empty";
  if (mask.has_value() && mask->defined()) {
    if (mask->requires_grad()) return "its mask requires grad";
    if (mask->dim() > 4) return "its mask has more than 4 dims";
    if (mask->scalar_type() != at::kBool && !at::isFloatingType(mask->scalar_type())) return "its mask is not bool or floating";
  }
  if (runs_attention_on_host(q.device().index())) return host_attention_declines(q, k, v, dropout_p);
  return kernels_decline(q, k, v, dropout_p);
}

int64_t fused_sdp_choice(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         const std::optional<at::Tensor>& mask, double dropout_p, bool /*is_causal*/,
                         std::optional<double> /*scale*/, bool enable_gqa) {
  const char* why = math_path_reason(q, k, v, mask, dropout_p, enable_gqa);
  if (why == nullptr) return static_cast<int64_t>(at::SDPBackend::overrideable);
  if (trace_ops()) {
    std::cerr << "torch_hal: scaled_dot_product_attention on " << q.device() << " takes ATen's math path: " << why
              << std::endl;
  }
  return static_cast<int64_t>(at::SDPBackend::math);
}

// The mask as scores to add, broadcast to [B, H, L, S] (a view: broadcast dims have stride 0); undefined
// without one. A bool mask keeps where true, as SDPA's.
at::Tensor additive_bias(const at::Tensor& mask, const at::Tensor& q, int64_t S) {
  if (!mask.defined()) return at::Tensor();
  return additive_mask(mask, q.options()).expand({q.size(0), q.size(1), q.size(2), S});
}

bool last_dim_contiguous(const at::Tensor& t) { return t.stride(3) == 1 || t.size(3) == 1; }

// A [B, H, seq, D] operand with a contiguous last dim, as the kernels take it.
at::Tensor rows_contiguous(const at::Tensor& t) { return last_dim_contiguous(t) ? t : t.contiguous(); }

// What the forward and backward ops take the same way (adapter.h): the bias input, or its absence; and the
// scalars, the scale (SDPA's default 1/sqrt(D) where none is given) and the causal flag.
void add_bias(KernelArgs& args, const at::Tensor& bias) {
  if (bias.defined()) args.input(bias);
  else args.absent_input();
}

// SDPA's scale: the given one, or 1/sqrt(D).
double scale_or_default(std::optional<double> scale, int64_t D) {
  return scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(D));
}

void add_scalars(KernelArgs& args, double scale, bool is_causal) { args.scalar(scale).scalar(is_causal); }

// Whether this call takes the GEMM route (attention_by_gemm.h) rather than the tiled kernels; says why not
// under TORCH_HAL_TRACE_OPS where the route exists but the workspace limit keeps it out.
bool takes_gemm_route(const at::Tensor& q, int64_t S, bool backward) {
  if (gemm_attention_applies(q, S, score_matrices(backward, 0.0))) return true;
  if (trace_ops()) {
    std::cerr << "torch_hal: attention " << (backward ? "backward" : "forward") << " on " << q.device()
              << " takes the tiled kernels (one head's scores do not fit TORCH_HAL_ATTENTION_WORKSPACE_MB, or the "
                 "adapter has no ATTENTION_SOFTMAX)" << std::endl;
  }
  return false;
}

// Dropout's (seed, offset) as SDPA's philox_seed / philox_offset outputs: 0-dim int64 tensors on the CPU
// (the bits of the unsigned counters).
at::Tensor cpu_scalar(uint64_t value) {
  at::Tensor t = at::empty({}, at::TensorOptions().dtype(at::kLong).device(at::kCPU));
  t.fill_(static_cast<int64_t>(value));
  return t;
}

uint64_t from_cpu_scalar(const at::Tensor& t) {
  TORCH_CHECK(t.defined() && t.numel() == 1, "torch_hal: the attention backward with dropout needs the forward's "
              "philox_seed and philox_offset");
  return static_cast<uint64_t>(t.item<int64_t>());
}

void check_launched(bool launched, const at::Tensor& q, const char* what) {
  TORCH_CHECK(launched, "torch_hal: the fused attention ", what, " on ", q.device(),
              " declined its arguments after _fused_sdp_choice chose it (this is a bug in torch_hal; please report "
              "it). Meanwhile run attention with `with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):`.");
}

void check_same_device(std::initializer_list<const at::Tensor*> tensors, const at::Tensor& q) {
  for (const at::Tensor* t : tensors) {
    if (!t->defined()) continue;
    TORCH_CHECK(t->device() == q.device(), "scaled_dot_product_attention: expected every tensor on ", q.device(),
                ", but one is on ", t->device(), "; move it with .to(\"", q.device(), "\")");
  }
}

ForwardResult fused_attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                              const std::optional<at::Tensor>& attn_bias, double dropout_p, bool is_causal,
                              bool /*return_debug_mask*/, std::optional<double> scale) {
  TORCH_CHECK(query.dim() == 4 && key.dim() == 4 && value.dim() == 4,
              "torch_hal: the fused attention takes [batch, heads, seq, dim] inputs");
  const int64_t B = query.size(0), H = query.size(1), L = query.size(2), D = query.size(3), S = key.size(2);
  const at::Tensor mask = attn_bias.value_or(at::Tensor());
  check_same_device({&key, &value, &mask}, query);
  const double used_scale = scale_or_default(scale, D);
  const at::Tensor no_rng = at::empty({}, query.options().dtype(at::kLong).device(at::kCPU));
  if (runs_attention_on_host(query.device().index())) {
    auto [out, lse] = host_attention_forward(query, key, value, attn_bias, is_causal, scale);
    return ForwardResult(out, lse, at::Tensor(), at::Tensor(), c10::SymInt(L), c10::SymInt(S), no_rng, no_rng,
                         at::Tensor());
  }
  const at::Tensor bias = additive_bias(mask, query, S);
  // _fused_sdp_choice checked that what needs the GEMM route fits it.
  if (needs_gemm_route(query, dropout_p) || takes_gemm_route(query, S, /*backward=*/false)) {
    auto [out, lse, draws] = gemm_attention_forward({query, key, value, bias, used_scale, is_causal, dropout_p});
    return ForwardResult(out, lse, at::Tensor(), at::Tensor(), c10::SymInt(L), c10::SymInt(S),
                         cpu_scalar(draws.seed), cpu_scalar(draws.offset), at::Tensor());
  }
  const at::Tensor q = rows_contiguous(query), k = rows_contiguous(key), v = rows_contiguous(value);
  AttentionResult out(query, last_dim_contiguous);
  at::Tensor lse = at::empty({B, H, L}, query.options().dtype(at::kFloat));
  KernelArgs args;
  args.input(q).input(k).input(v);
  add_bias(args, bias);
  args.output(out.written).output(lse);
  add_scalars(args, used_scale, is_causal);
  check_launched(launch(query.device().index(), HAL_OP_ATTENTION, args), query, "forward");
  out.finish();
  return ForwardResult(out.result, lse, at::Tensor(), at::Tensor(), c10::SymInt(L), c10::SymInt(S), no_rng, no_rng,
                       at::Tensor());
}

Tensors4 fused_attention_backward(const at::Tensor& grad_out, const at::Tensor& query, const at::Tensor& key,
                                  const at::Tensor& value, const at::Tensor& attn_bias,
                                  std::array<bool, 4> grad_input_mask, const at::Tensor& out,
                                  const at::Tensor& logsumexp, const at::Tensor& /*cum_seq_q*/,
                                  const at::Tensor& /*cum_seq_k*/, int64_t /*max_q*/, int64_t /*max_k*/,
                                  double dropout_p, bool is_causal, const at::Tensor& philox_seed,
                                  const at::Tensor& philox_offset, std::optional<double> scale) {
  TORCH_CHECK(!grad_input_mask[3], "torch_hal: the fused attention computes no gradient of its mask; "
              "_fused_sdp_choice sends masks that require grad to the math path");
  const int64_t D = query.size(3), S = key.size(2);
  check_same_device({&key, &value, &grad_out, &out, &logsumexp, &attn_bias}, query);
  const double used_scale = scale_or_default(scale, D);
  auto wanted = [&](const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv) {
    return Tensors4(grad_input_mask[0] ? dq : at::Tensor(), grad_input_mask[1] ? dk : at::Tensor(),
                    grad_input_mask[2] ? dv : at::Tensor(), at::Tensor());
  };
  if (runs_attention_on_host(query.device().index())) {
    const std::optional<at::Tensor> mask = attn_bias.defined() ? std::optional<at::Tensor>(attn_bias) : std::nullopt;
    auto [dq, dk, dv] = host_attention_backward(grad_out, query, key, value, out, logsumexp, mask, is_causal, scale);
    return wanted(dq, dk, dv);
  }
  const at::Tensor bias = additive_bias(attn_bias, query, S);
  if (needs_gemm_route(query, dropout_p) || takes_gemm_route(query, S, /*backward=*/true)) {
    const DropoutDraws draws = dropout_p > 0.0 ? DropoutDraws{from_cpu_scalar(philox_seed), from_cpu_scalar(philox_offset)}
                                               : DropoutDraws{};
    auto [dq, dk, dv] =
        gemm_attention_backward({query, key, value, bias, used_scale, is_causal, dropout_p}, grad_out, logsumexp, draws);
    return wanted(dq, dk, dv);
  }
  const at::Tensor q = rows_contiguous(query), k = rows_contiguous(key), v = rows_contiguous(value);
  const at::Tensor dout = rows_contiguous(grad_out), o = rows_contiguous(out);
  const at::Tensor lse = logsumexp.contiguous();
  AttentionResult dq(query, last_dim_contiguous), dk(key, last_dim_contiguous), dv(value, last_dim_contiguous);
  KernelArgs args;
  args.input(dout).input(q).input(k).input(v).input(o).input(lse);
  add_bias(args, bias);
  args.output(dq.written).output(dk.written).output(dv.written);
  add_scalars(args, used_scale, is_causal);
  check_launched(launch(query.device().index(), HAL_OP_ATTENTION_BACKWARD, args), query, "backward");
  dq.finish();
  dk.finish();
  dv.finish();
  return wanted(dq.result, dk.result, dv.result);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  impl_recorded(m, Route::AdapterFirst, "_scaled_dot_product_fused_attention_overrideable",
                TORCH_FN(fused_attention), launches(HAL_OP_ATTENTION));
  impl_recorded(m, Route::AdapterFirst, "_scaled_dot_product_fused_attention_overrideable_backward",
                TORCH_FN(fused_attention_backward), launches(HAL_OP_ATTENTION_BACKWARD));
}

}  // namespace torch_hal::native

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &torch_hal::native::fused_sdp_choice)
}  // namespace at::native
