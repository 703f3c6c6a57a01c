// multi_margin_loss and multilabel_margin_loss (nn.MultiMarginLoss, nn.MultiLabelMarginLoss) and their backward
// ops, composed from native gathers, comparisons, elementwise ops and reductions. ATen gives them CPU and CUDA
// kernels only, so they took the CPU fallback. The formulas are the CPU kernels' (in their order of operations):
//
//   multi_margin:      loss_n = sum_{j != y} w_y * max(0, margin - x_y + x_j)^p / C
//   multilabel_margin: loss_n = sum_{k < first -1} sum_{j not a target} max(0, 1 - x_{t_k} + x_j) / C
//
// the second over an [N, C, C] grid of (target slot, class) pairs, as the CPU kernel loops over them. 16-bit
// inputs are computed in float and rounded once. Target indices out of range are one check (one host read).
// Class indices are compared in the compute dtype (exact below 2^24 classes; more take ATen's route), and masks
// are 0/1 values of it or nested where: no int64 comparisons or bool logic, which some devices' kernels lack
// (OpenCL's).
#include <ATen/ops/arange.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/rsub.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

#include <optional>
#include <tuple>
#include <utility>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

using Tensors2 = std::tuple<at::Tensor, at::Tensor>;

bool lossable(const at::Tensor& input, const at::Tensor& target) {
  const at::ScalarType t = input.scalar_type();
  constexpr int64_t exact_in_float = int64_t{1} << 24;
  return (t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16) &&
         target.scalar_type() == at::kLong && (input.dim() == 0 || input.size(-1) < exact_in_float);
}

// Whether any class index lies outside [lo, hi]: clamping changes it.
bool out_of_range(const at::Tensor& classes, double lo, double hi) {
  return classes.clamp(lo, hi).ne(classes).any().item<bool>();
}
at::ScalarType compute_type(at::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

// Reduction::None = 0, Mean = 1, Sum = 2 (ATen's enum).
at::Tensor reduced(const at::Tensor& per_frame, int64_t reduction, bool frames_kept) {
  if (reduction == 1) return per_frame.mean();
  if (reduction == 2) return per_frame.sum();
  return frames_kept ? per_frame : per_frame.reshape({});
}

// The gradient scale of the CPU kernels: 1 / C, or 1 / (N C) for the mean.
double gradient_scale(int64_t reduction, int64_t nframe, int64_t dim) {
  return reduction == 1 ? 1. / static_cast<double>(nframe * dim) : 1. / static_cast<double>(dim);
}

// grad [N, C] times grad_output: one scalar, or one per frame (reduction none with a frame dim).
at::Tensor times_grad_output(const at::Tensor& grad, const at::Tensor& grad_output, int64_t reduction) {
  if (reduction != 0 || grad_output.dim() == 0) return grad.mul(grad_output.to(grad.scalar_type()));
  return grad.mul(grad_output.to(grad.scalar_type()).reshape({-1, 1}));
}

// ---- multi_margin_loss ----------------------------------------------------------------------------------------
struct Frames {
  int64_t nframe = 1, dim = 1;
};

Frames multi_margin_frames(const at::Tensor& input, const at::Tensor& target,
                           const std::optional<at::Tensor>& weight) {
  Frames f;
  f.nframe = input.dim() <= 1 ? 1 : input.size(0);
  f.dim = input.dim() == 0 ? 1 : input.size(-1);
  TORCH_CHECK(input.dim() <= 2 && input.numel() != 0,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", input.sizes());
  TORCH_CHECK(target.dim() <= 1 && target.numel() == f.nframe, "inconsistent target size, expected ", f.nframe,
              " but got ", target.sizes());
  if (weight && weight->defined()) {
    TORCH_CHECK(weight->dim() <= 1 && weight->numel() == f.dim, "inconsistent weight size, expected ", f.dim,
                " but got ", weight->sizes());
  }
  return f;
}

// Per (frame, class): the hinge z = margin - x_y + x_j, whether j is y, and w_y.
struct Hinge {
  at::Tensor z, is_y, w;  // [N, C], [N, C] bool, [N, 1] or undefined
};

Hinge hinge_of(const at::Tensor& x, const at::Tensor& target, const c10::Scalar& margin,
               const std::optional<at::Tensor>& weight, const Frames& f) {
  const at::Tensor y = target.reshape({f.nframe, 1});
  const at::Tensor classes = y.to(x.scalar_type());
  TORCH_CHECK(!out_of_range(classes, 0, static_cast<double>(f.dim - 1)), "target out of range");
  Hinge h;
  h.z = at::rsub(x.gather(1, y), margin).add(x);
  h.is_y = at::arange(f.dim, x.options()).view({1, f.dim}).eq(classes);
  if (weight && weight->defined()) {
    h.w = weight->to(x.scalar_type()).reshape({-1}).index_select(0, y.reshape({-1})).view({-1, 1});
  }
  return h;
}

// What the forward and the backward share: ATen's checks, the frames, and the hinge of the input in its compute
// type.
std::pair<Frames, Hinge> multi_margin_problem(const at::Tensor& input, const at::Tensor& target,
                                              const c10::Scalar& p, const c10::Scalar& margin,
                                              const std::optional<at::Tensor>& weight) {
  TORCH_CHECK(p.toLong() == 1 || p.toLong() == 2, "only p == 1 and p == 2 supported");
  const Frames f = multi_margin_frames(input, target, weight);
  const at::Tensor x = input.to(compute_type(input.scalar_type())).reshape({f.nframe, f.dim});
  return {f, hinge_of(x, target, margin, weight, f)};
}

// `terms` where the hinge counts (z > 0, j != y), else 0.
at::Tensor where_counts(const Hinge& h, const at::Tensor& terms) {
  const at::Tensor zero = at::scalar_tensor(0, terms.options());
  return at::where(h.is_y, zero, at::where(h.z.gt(0), terms, zero));
}

std::optional<at::Tensor> native_multi_margin_loss(const at::Tensor& input, const at::Tensor& target,
                                                   const c10::Scalar& p, const c10::Scalar& margin,
                                                   const std::optional<at::Tensor>& weight, int64_t reduction) {
  if (!lossable(input, target)) return std::nullopt;
  const auto [f, h] = multi_margin_problem(input, target, p, margin, weight);
  at::Tensor terms = p.toLong() == 1 ? h.z : h.z.mul(h.z);
  if (h.w.defined()) terms = terms.mul(h.w);
  const at::Tensor per_frame = where_counts(h, terms).sum(1).div_(static_cast<double>(f.dim));
  return reduced(per_frame, reduction, target.dim() > 0).to(input.scalar_type());
}

bool native_multi_margin_loss_out(const at::Tensor& input, const at::Tensor& target, const c10::Scalar& p,
                                  const c10::Scalar& margin, const std::optional<at::Tensor>& weight,
                                  int64_t reduction, at::Tensor& out) {
  return write_out(native_multi_margin_loss(input, target, p, margin, weight, reduction), out);
}

// d/dx_j = g (p = 1) or 2 g z (p = 2), times w_y, where the hinge counts; d/dx_y = minus their sum.
std::optional<at::Tensor> native_multi_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                            const at::Tensor& target, const c10::Scalar& p,
                                                            const c10::Scalar& margin,
                                                            const std::optional<at::Tensor>& weight,
                                                            int64_t reduction) {
  if (!lossable(input, target)) return std::nullopt;
  const auto [f, h] = multi_margin_problem(input, target, p, margin, weight);
  const double g = gradient_scale(reduction, f.nframe, f.dim);
  at::Tensor d = p.toLong() == 1 ? at::full_like(h.z, g) : h.z.mul(2 * g);
  if (h.w.defined()) d = d.mul(h.w);
  d = where_counts(h, d);
  const at::Tensor grad = at::where(h.is_y, d.sum(1, /*keepdim=*/true).neg(), d);
  return times_grad_output(grad, grad_output, reduction).reshape(input.sizes()).to(input.scalar_type());
}

bool native_multi_margin_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& input,
                                           const at::Tensor& target, const c10::Scalar& p, const c10::Scalar& margin,
                                           const std::optional<at::Tensor>& weight, int64_t reduction,
                                           at::Tensor& grad_input) {
  return write_out(native_multi_margin_loss_backward(grad_output, input, target, p, margin, weight, reduction),
                   grad_input);
}

// ---- multilabel_margin_loss ---------------------------------------------------------------------------------
Frames multilabel_frames(const at::Tensor& input, const at::Tensor& target) {
  const int64_t ndims = input.dim();
  TORCH_CHECK((ndims == 2 && input.size(1) != 0) || (ndims == 1 && input.size(0) != 0) || ndims == 0,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", input.sizes());
  Frames f;
  if (ndims <= 1) {
    f.dim = ndims == 0 ? 1 : input.size(0);
    TORCH_CHECK(target.dim() <= 1 && target.numel() == f.dim, "inconsistent target size: ", target.sizes(),
                " for input of size: ", input.sizes());
  } else {
    f.nframe = input.size(0);
    f.dim = input.size(1);
    TORCH_CHECK(target.dim() == 2 && target.size(0) == f.nframe && target.size(1) == f.dim,
                "inconsistent target size: ", target.sizes(), " for input of size: ", input.sizes());
  }
  return f;
}

// The (target slot k, class j) grid, as 0/1 values: which class each active slot names (slots from the first -1
// on are inactive), and the hinge 1 - x_{t_k} + x_j.
struct Pairs {
  at::Tensor active;  // [N, K, 1]
  at::Tensor named;   // [N, K, C]: slot k is active and names class j
  at::Tensor z;       // [N, K, C]
};

Pairs pairs_of(const at::Tensor& x, const at::Tensor& target, const Frames& f) {
  const at::Tensor t = target.reshape({f.nframe, f.dim});
  const at::Tensor classes = t.to(x.scalar_type());
  TORCH_CHECK(!out_of_range(classes, -1, static_cast<double>(f.dim - 1)), "target out of range");
  Pairs pr;
  // No -1 up to slot k: the running count of -1s is still 0.
  pr.active = classes.lt(0).to(x.scalar_type()).cumsum(1).eq(0).to(x.scalar_type()).unsqueeze(2);
  pr.named = at::arange(f.dim, x.options()).view({1, 1, f.dim}).eq(classes.unsqueeze(2)).to(x.scalar_type()).mul(pr.active);
  const at::Tensor xt = x.gather(1, t.clamp_min(0));  // [N, K]
  pr.z = at::rsub(xt, 1).unsqueeze(2).add(x.unsqueeze(1));
  return pr;
}

// 1 for the pairs that count (slot k active, class j not a target, z > 0), else 0.
at::Tensor counting(const Pairs& pr, const at::Tensor& is_target) {
  const at::Tensor non_target = at::rsub(is_target, 1).unsqueeze(1);  // [N, 1, C]
  return pr.active.mul(non_target).mul_(pr.z.gt(0).to(pr.z.scalar_type()));
}

std::optional<Tensors2> native_multilabel_margin_loss_forward(const at::Tensor& input, const at::Tensor& target,
                                                              int64_t reduction) {
  if (!lossable(input, target)) return std::nullopt;
  const Frames f = multilabel_frames(input, target);
  const at::ScalarType compute = compute_type(input.scalar_type());
  const at::Tensor x = input.to(compute).reshape({f.nframe, f.dim});
  const Pairs pr = pairs_of(x, target, f);
  const at::Tensor is_target = pr.named.amax(1);  // [N, C]
  const at::Tensor per_frame = at::where(counting(pr, is_target).gt(0), pr.z, at::scalar_tensor(0, pr.z.options()))
                                   .sum({1, 2})
                                   .div_(static_cast<double>(f.dim));
  at::Tensor output = reduced(per_frame, reduction, target.dim() > 1).to(input.scalar_type());
  return Tensors2(std::move(output), is_target.reshape(target.sizes()).to(input.scalar_type()));
}

// d/dx_j = g per counting pair (k, j); d/dx_{t_k} = minus g per counting pair of slot k.
std::optional<at::Tensor> native_multilabel_margin_loss_backward(const at::Tensor& grad_output,
                                                                 const at::Tensor& input, const at::Tensor& target,
                                                                 int64_t reduction, const at::Tensor& is_target) {
  if (!lossable(input, target) || is_target.scalar_type() != input.scalar_type()) return std::nullopt;
  const Frames f = multilabel_frames(input, target);
  TORCH_CHECK(is_target.sizes() == target.sizes(), "inconsistent is_target size: ", is_target.sizes(),
              " for target of size: ", target.sizes());
  const at::ScalarType compute = compute_type(input.scalar_type());
  const at::Tensor x = input.to(compute).reshape({f.nframe, f.dim});
  const Pairs pr = pairs_of(x, target, f);
  const at::Tensor counts = counting(pr, is_target.to(compute).reshape({f.nframe, f.dim}));  // [N, K, C]
  const double g = gradient_scale(reduction, f.nframe, f.dim);
  const at::Tensor plus = counts.sum(1);                                                   // [N, C]
  const at::Tensor minus = pr.named.mul(counts.sum(2, /*keepdim=*/true)).sum(1);  // [N, C]
  const at::Tensor grad = plus.sub(minus).mul_(g);
  return times_grad_output(grad, grad_output, reduction).reshape(input.sizes()).to(input.scalar_type());
}

bool native_multilabel_margin_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& input,
                                                const at::Tensor& target, int64_t reduction,
                                                const at::Tensor& is_target, at::Tensor& grad_input) {
  return write_out(native_multilabel_margin_loss_backward(grad_output, input, target, reduction, is_target),
                   grad_input);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, multi_margin_loss, "multi_margin_loss", launches(), native_multi_margin_loss);
  HAL_NATIVE(m, multi_margin_loss_out, "multi_margin_loss.out", launches(), native_multi_margin_loss_out);
  HAL_NATIVE(m, multi_margin_loss_backward, "multi_margin_loss_backward", launches(),
             native_multi_margin_loss_backward);
  HAL_NATIVE(m, multi_margin_loss_backward_grad_input, "multi_margin_loss_backward.grad_input", launches(),
             native_multi_margin_loss_backward_out);
  HAL_NATIVE(m, multilabel_margin_loss_forward, "multilabel_margin_loss_forward", launches(),
             native_multilabel_margin_loss_forward);
  HAL_NATIVE(m, multilabel_margin_loss_backward, "multilabel_margin_loss_backward", launches(),
             native_multilabel_margin_loss_backward);
  HAL_NATIVE(m, multilabel_margin_loss_backward_grad_input, "multilabel_margin_loss_backward.grad_input", launches(),
             native_multilabel_margin_loss_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
