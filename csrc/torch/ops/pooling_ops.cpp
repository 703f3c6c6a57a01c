// 2-D pooling over the adapter's pooling kernels: max_pool2d_with_indices, avg_pool2d,
// _adaptive_avg_pool2d, adaptive_max_pool2d and their backward ops (what nn.MaxPool2d, nn.AvgPool2d,
// nn.AdaptiveAvgPool2d and nn.AdaptiveMaxPool2d reach; adaptive average pooling to 1x1 is a mean, which the
// reduction kernels run).
//
// As ATen's CUDA kernels: 3-D [C, H, W] or 4-D [N, C, H, W] input; a 4-D channels-last input gives a
// channels-last output, anything else is made contiguous; indices are int64 offsets into an input plane.
// The output sizes and the argument checks are ATen's (pooling_output_shape, pool2d_shape_check). Arguments
// these checks reject, and dtypes without a kernel, take the op's usual path, which raises ATen's errors.
// The kernels take a positive divisor_override only: a negative one d divides by -d and negates the result
// (exactly what dividing by d gives, negation being exact).
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/core/SymIntArrayRef.h>
#include <torch/library.h>

#include <cstdlib>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

using Tensors2 = std::tuple<at::Tensor, at::Tensor>;

bool is_kernel_type(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16 || t == at::kDouble;
}

// ATen's pooling_output_shape (ATen/native/Pool.h), checks returned as nullopt.
std::optional<int64_t> pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  if (stride <= 0 || pad < 0 || pad > ((k - 1) * dilation + 1) / 2) return std::nullopt;
  const int64_t numerator = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // div_rtn: division rounding toward negative infinity.
  int64_t out = numerator / stride;
  if (numerator % stride != 0 && ((numerator < 0) != (stride < 0))) --out;
  out += 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// A window of max/avg pooling, parsed as ATen parses int[2] arguments (one value means both).
struct Window {
  int64_t kH = 0, kW = 0, sH = 0, sW = 0, pH = 0, pW = 0, dH = 1, dW = 1;
};

std::optional<Window> parse_window(at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                                   at::IntArrayRef dilation) {
  if (kernel.size() != 1 && kernel.size() != 2) return std::nullopt;
  if (!stride.empty() && stride.size() != 1 && stride.size() != 2) return std::nullopt;
  if (padding.size() != 1 && padding.size() != 2) return std::nullopt;
  if (dilation.size() != 1 && dilation.size() != 2) return std::nullopt;
  Window w;
  w.kH = kernel[0];
  w.kW = kernel.size() == 1 ? w.kH : kernel[1];
  w.sH = stride.empty() ? w.kH : stride[0];
  w.sW = stride.empty() ? w.kW : stride.size() == 1 ? w.sH : stride[1];
  w.pH = padding[0];
  w.pW = padding.size() == 1 ? w.pH : padding[1];
  w.dH = dilation[0];
  w.dW = dilation.size() == 1 ? w.dH : dilation[1];
  if (w.kH <= 0 || w.kW <= 0 || w.sH <= 0 || w.sW <= 0 || w.dH <= 0 || w.dW <= 0 || w.pH < 0 || w.pW < 0 ||
      w.kH / 2 < w.pH || w.kW / 2 < w.pW) {
    return std::nullopt;
  }
  return w;
}

// The input's geometry as the kernels see it: [N, C, H, W] (N = 1 for 3-D input) in one dense layout.
struct Planes {
  int64_t N = 1, C = 0, H = 0, W = 0;
  bool batched = true, channels_last = false;
  at::MemoryFormat format = at::MemoryFormat::Contiguous;
};

std::optional<Planes> planes_of(const at::Tensor& input) {
  if (!is_kernel_type(input.scalar_type()) || (input.dim() != 3 && input.dim() != 4)) return std::nullopt;
  Planes p;
  p.batched = input.dim() == 4;
  const int64_t o = p.batched ? 1 : 0;
  p.N = p.batched ? input.size(0) : 1;
  p.C = input.size(o);
  p.H = input.size(o + 1);
  p.W = input.size(o + 2);
  // ATen's checks: non-empty planes and channels (only the batch may be empty).
  if (p.C == 0 || p.H == 0 || p.W == 0) return std::nullopt;
  p.format = p.batched ? input.suggest_memory_format() : at::MemoryFormat::Contiguous;
  p.channels_last = p.format == at::MemoryFormat::ChannelsLast;
  return p;
}

// A [N, C, P, Q] tensor (the input's layout) of the input's or indices' dtype.
at::Tensor empty_planes(const Planes& p, int64_t P, int64_t Q, const at::TensorOptions& options) {
  if (!p.batched) return at::empty({p.C, P, Q}, options);
  return at::empty({p.N, p.C, P, Q}, options.memory_format(p.format));
}

// `t` (dense in the planes' layout, [N, C, P, Q] or [C, P, Q]) as a 4-D kernel operand.
KernelArgs& add_planes(KernelArgs& args, const at::Tensor& t, const Planes& p, int64_t P, int64_t Q, bool output) {
  const int64_t sizes[] = {p.N, p.C, P, Q};
  const int64_t first[] = {p.C * P * Q, P * Q, Q, 1}, last[] = {P * Q * p.C, 1, Q * p.C, p.C};
  const at::IntArrayRef strides = p.channels_last ? at::IntArrayRef(last) : at::IntArrayRef(first);
  return output ? args.output_as(t, sizes, strides) : args.input_as(t, sizes, strides);
}

// The shape [N, C, P, Q] (or [C, P, Q]) of `t`, as a check.
bool has_planes(const at::Tensor& t, const Planes& p, int64_t P, int64_t Q) {
  if (t.dim() != (p.batched ? 4 : 3)) return false;
  const int64_t o = p.batched ? 1 : 0;
  return (!p.batched || t.size(0) == p.N) && t.size(o) == p.C && t.size(o + 1) == P && t.size(o + 2) == Q;
}

// ---- max_pool2d_with_indices -----------------------------------------------------------------------------
std::optional<std::pair<int64_t, int64_t>> pooled_shape(const Planes& p, const Window& w, bool ceil_mode) {
  const auto OH = pooled_size(p.H, w.kH, w.pH, w.sH, w.dH, ceil_mode);
  const auto OW = pooled_size(p.W, w.kW, w.pW, w.sW, w.dW, ceil_mode);
  if (!OH || !OW || *OH < 1 || *OW < 1) return std::nullopt;  // "Output size is too small"
  return std::make_pair(*OH, *OW);
}

void add_window(KernelArgs& args, const Window& w, int64_t a, int64_t b) {
  args.scalar(w.kH).scalar(w.kW).scalar(w.sH).scalar(w.sW).scalar(w.pH).scalar(w.pW).scalar(a).scalar(b);
}

std::optional<Tensors2> max_pool2d(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                   at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode) {
  const auto p = planes_of(self);
  const auto w = parse_window(kernel_size, stride, padding, dilation);
  if (!p || !w) return std::nullopt;
  const auto shape = pooled_shape(*p, *w, ceil_mode);
  if (!shape) return std::nullopt;
  const auto [OH, OW] = *shape;
  const at::Tensor x = self.contiguous(p->format);
  at::Tensor out = empty_planes(*p, OH, OW, x.options());
  at::Tensor indices = empty_planes(*p, OH, OW, x.options().dtype(at::kLong));
  KernelArgs args;
  add_planes(args, x, *p, p->H, p->W, false);
  add_planes(args, out, *p, OH, OW, true);
  add_planes(args, indices, *p, OH, OW, true);
  add_window(args, *w, w->dH, w->dW);
  if (!launch(self.device().index(), HAL_OP_MAX_POOL2D, args)) return std::nullopt;
  return Tensors2(std::move(out), std::move(indices));
}

std::optional<at::Tensor> max_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                              at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                              at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                                              const at::Tensor& indices) {
  const auto p = planes_of(self);
  const auto w = parse_window(kernel_size, stride, padding, dilation);
  if (!p || !w || grad_output.scalar_type() != self.scalar_type() || indices.scalar_type() != at::kLong) {
    return std::nullopt;
  }
  const auto shape = pooled_shape(*p, *w, ceil_mode);
  if (!shape || !has_planes(grad_output, *p, shape->first, shape->second) ||
      !has_planes(indices, *p, shape->first, shape->second)) {
    return std::nullopt;
  }
  const at::Tensor dy = grad_output.contiguous(p->format), ind = indices.contiguous(p->format);
  at::Tensor dx = empty_planes(*p, p->H, p->W, self.options());
  KernelArgs args;
  add_planes(args, dy, *p, shape->first, shape->second, false);
  add_planes(args, ind, *p, shape->first, shape->second, false);
  add_planes(args, dx, *p, p->H, p->W, true);
  add_window(args, *w, w->dH, w->dW);
  if (!launch(self.device().index(), HAL_OP_MAX_POOL2D_BACKWARD, args)) return std::nullopt;
  return dx;
}

// ---- avg_pool2d ---------------------------------------------------------------------------------------------
std::optional<at::Tensor> avg_pool2d(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                     at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                     std::optional<int64_t> divisor_override) {
  const int64_t one[] = {1};
  const auto p = planes_of(self);
  const auto w = parse_window(kernel_size, stride, padding, one);
  if (!p || !w || (divisor_override.has_value() && *divisor_override == 0)) return std::nullopt;
  const auto shape = pooled_shape(*p, *w, ceil_mode);
  if (!shape) return std::nullopt;
  const auto [OH, OW] = *shape;
  const at::Tensor x = self.contiguous(p->format);
  at::Tensor out = empty_planes(*p, OH, OW, x.options());
  const int64_t divisor = divisor_override.value_or(0);
  KernelArgs args;
  add_planes(args, x, *p, p->H, p->W, false);
  add_planes(args, out, *p, OH, OW, true);
  add_window(args, *w, count_include_pad ? 1 : 0, std::abs(divisor));
  if (!launch(self.device().index(), HAL_OP_AVG_POOL2D, args)) return std::nullopt;
  return divisor < 0 ? out.neg_() : out;
}

std::optional<at::Tensor> avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                              at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                              at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                              std::optional<int64_t> divisor_override) {
  const int64_t one[] = {1};
  const auto p = planes_of(self);
  const auto w = parse_window(kernel_size, stride, padding, one);
  if (!p || !w || (divisor_override.has_value() && *divisor_override == 0) ||
      grad_output.scalar_type() != self.scalar_type()) {
    return std::nullopt;
  }
  const auto shape = pooled_shape(*p, *w, ceil_mode);
  if (!shape || !has_planes(grad_output, *p, shape->first, shape->second)) return std::nullopt;
  const at::Tensor dy = grad_output.contiguous(p->format);
  at::Tensor dx = empty_planes(*p, p->H, p->W, self.options());
  const int64_t divisor = divisor_override.value_or(0);
  KernelArgs args;
  add_planes(args, dy, *p, shape->first, shape->second, false);
  add_planes(args, dx, *p, p->H, p->W, true);
  add_window(args, *w, count_include_pad ? 1 : 0, std::abs(divisor));
  if (!launch(self.device().index(), HAL_OP_AVG_POOL2D_BACKWARD, args)) return std::nullopt;
  return divisor < 0 ? dx.neg_() : dx;
}

// ---- adaptive pooling ---------------------------------------------------------------------------------------
std::optional<std::pair<int64_t, int64_t>> adaptive_shape(at::IntArrayRef output_size) {
  if (output_size.size() != 2 || output_size[0] < 0 || output_size[1] < 0) return std::nullopt;
  return std::make_pair(output_size[0], output_size[1]);
}

std::optional<at::Tensor> adaptive_avg_pool2d(const at::Tensor& self, c10::SymIntArrayRef output_size_sym) {
  const auto p = planes_of(self);
  const auto shape = adaptive_shape(C10_AS_INTARRAYREF_SLOW(output_size_sym));
  if (!p || !shape) return std::nullopt;
  const auto [OH, OW] = *shape;
  const at::Tensor x = self.contiguous(p->format);
  at::Tensor out = empty_planes(*p, OH, OW, x.options());
  if (out.numel() == 0) return out;
  KernelArgs args;
  add_planes(args, x, *p, p->H, p->W, false);
  add_planes(args, out, *p, OH, OW, true);
  if (!launch(self.device().index(), HAL_OP_ADAPTIVE_AVG_POOL2D, args)) return std::nullopt;
  return out;
}

std::optional<at::Tensor> adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const auto p = planes_of(self);
  if (!p || grad_output.scalar_type() != self.scalar_type() || grad_output.dim() != self.dim()) return std::nullopt;
  const int64_t OH = grad_output.size(-2), OW = grad_output.size(-1);
  if (!has_planes(grad_output, *p, OH, OW) || OH == 0 || OW == 0) return std::nullopt;
  const at::Tensor dy = grad_output.contiguous(p->format);
  at::Tensor dx = empty_planes(*p, p->H, p->W, self.options());
  if (dx.numel() == 0) return dx;
  KernelArgs args;
  add_planes(args, dy, *p, OH, OW, false);
  add_planes(args, dx, *p, p->H, p->W, true);
  if (!launch(self.device().index(), HAL_OP_ADAPTIVE_AVG_POOL2D_BACKWARD, args)) return std::nullopt;
  return dx;
}

std::optional<Tensors2> adaptive_max_pool2d(const at::Tensor& self, at::IntArrayRef output_size) {
  const auto p = planes_of(self);
  const auto shape = adaptive_shape(output_size);
  if (!p || !shape) return std::nullopt;
  const auto [OH, OW] = *shape;
  const at::Tensor x = self.contiguous(p->format);
  at::Tensor out = empty_planes(*p, OH, OW, x.options());
  at::Tensor indices = empty_planes(*p, OH, OW, x.options().dtype(at::kLong));
  if (out.numel() == 0) return Tensors2(std::move(out), std::move(indices));
  KernelArgs args;
  add_planes(args, x, *p, p->H, p->W, false);
  add_planes(args, out, *p, OH, OW, true);
  add_planes(args, indices, *p, OH, OW, true);
  if (!launch(self.device().index(), HAL_OP_ADAPTIVE_MAX_POOL2D, args)) return std::nullopt;
  return Tensors2(std::move(out), std::move(indices));
}

std::optional<at::Tensor> adaptive_max_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                       const at::Tensor& indices) {
  const auto p = planes_of(self);
  if (!p || grad_output.scalar_type() != self.scalar_type() || indices.scalar_type() != at::kLong ||
      grad_output.dim() != self.dim()) {
    return std::nullopt;
  }
  const int64_t OH = grad_output.size(-2), OW = grad_output.size(-1);
  if (!has_planes(grad_output, *p, OH, OW) || !has_planes(indices, *p, OH, OW) || OH == 0 || OW == 0) {
    return std::nullopt;
  }
  const at::Tensor dy = grad_output.contiguous(p->format), ind = indices.contiguous(p->format);
  at::Tensor dx = empty_planes(*p, p->H, p->W, self.options());
  if (dx.numel() == 0) return dx;
  KernelArgs args;
  add_planes(args, dy, *p, OH, OW, false);
  add_planes(args, ind, *p, OH, OW, false);
  add_planes(args, dx, *p, p->H, p->W, true);
  if (!launch(self.device().index(), HAL_OP_ADAPTIVE_MAX_POOL2D_BACKWARD, args)) return std::nullopt;
  return dx;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, max_pool2d_with_indices, "max_pool2d_with_indices", launches(HAL_OP_MAX_POOL2D), max_pool2d);
  HAL_NATIVE(m, max_pool2d_with_indices_backward, "max_pool2d_with_indices_backward", launches(HAL_OP_MAX_POOL2D_BACKWARD), max_pool2d_backward);
  HAL_NATIVE(m, avg_pool2d, "avg_pool2d", launches(HAL_OP_AVG_POOL2D), avg_pool2d);
  HAL_NATIVE(m, avg_pool2d_backward, "avg_pool2d_backward", launches(HAL_OP_AVG_POOL2D_BACKWARD), avg_pool2d_backward);
  HAL_NATIVE(m, _adaptive_avg_pool2d, "_adaptive_avg_pool2d", launches(HAL_OP_ADAPTIVE_AVG_POOL2D), adaptive_avg_pool2d);
  HAL_NATIVE(m, _adaptive_avg_pool2d_backward, "_adaptive_avg_pool2d_backward", launches(HAL_OP_ADAPTIVE_AVG_POOL2D_BACKWARD), adaptive_avg_pool2d_backward);
  HAL_NATIVE(m, adaptive_max_pool2d, "adaptive_max_pool2d", launches(HAL_OP_ADAPTIVE_MAX_POOL2D), adaptive_max_pool2d);
  HAL_NATIVE(m, adaptive_max_pool2d_backward, "adaptive_max_pool2d_backward", launches(HAL_OP_ADAPTIVE_MAX_POOL2D_BACKWARD), adaptive_max_pool2d_backward);
}

}  // namespace
}  // namespace torch_hal::native
