// convolution and convolution_backward over the adapter's convolution ops (adapter.h, 1000..1002): what
// nn.Conv1d/2d/3d and nn.ConvTranspose1d/2d/3d reach, forward and backward, with groups, dilation, padding
// and channels-last tensors.
//
// As torch.cuda's cuDNN path: the input and weight are made dense in one memory format (channels-last
// when either of them suggests it, cudnn_conv_suggest_memory_format), the output has that format, and the
// bias is added (and its gradient summed) by the elementwise and reduction kernels. A transposed
// convolution is the gradient of a convolution: its forward is BACKWARD_INPUT with the input as dy, its
// input gradient a CONVOLUTION, its weight gradient BACKWARD_WEIGHT with the two activations swapped.
// What the adapter does not take (no cuDNN, dtypes, int32 overflow, unusual arguments that ATen's checks
// would reject) takes the op's earlier path: the CPU kernel, counted as a fallback, which raises ATen's
// errors.
#include <ATen/ops/empty.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>
#include <c10/core/SymIntArrayRef.h>
#include <torch/library.h>

#include <algorithm>
#include <array>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

using Tensors3 = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

bool is_kernel_type(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16 || t == at::kDouble;
}

// A convolution's arguments with every list expanded to one value per spatial dim.
struct ConvArgs {
  int64_t spatial = 0;
  c10::SmallVector<int64_t, 3> stride, padding, dilation, output_padding;
  int64_t groups = 1;
  bool transposed = false;
  at::MemoryFormat format = at::MemoryFormat::Contiguous;
};

// `list` as `n` concrete values (a single value stands for all), or false.
bool expand(c10::SymIntArrayRef list, int64_t n, int64_t min_value, c10::SmallVector<int64_t, 3>* out) {
  if (list.size() != 1 && static_cast<int64_t>(list.size()) != n) return false;
  for (int64_t i = 0; i < n; ++i) {
    const auto v = list[list.size() == 1 ? 0 : i].maybe_as_int();
    if (!v || *v < min_value) return false;
    out->push_back(*v);
  }
  return true;
}

std::optional<ConvArgs> conv_args(const at::Tensor& input, const at::Tensor& weight, c10::SymIntArrayRef stride,
                                  c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation, bool transposed,
                                  c10::SymIntArrayRef output_padding, const c10::SymInt& groups) {
  const int64_t nd = input.dim();
  if (nd < 3 || nd > 5 || weight.dim() != nd || input.scalar_type() != weight.scalar_type() ||
      !is_kernel_type(input.scalar_type()) || input.numel() == 0 || weight.numel() == 0) {
    return std::nullopt;
  }
  ConvArgs a;
  a.spatial = nd - 2;
  a.transposed = transposed;
  const auto g = groups.maybe_as_int();
  if (!g || *g < 1) return std::nullopt;
  a.groups = *g;
  if (!expand(stride, a.spatial, 1, &a.stride) || !expand(padding, a.spatial, 0, &a.padding) ||
      !expand(dilation, a.spatial, 1, &a.dilation)) {
    return std::nullopt;
  }
  if (transposed) {
    if (!expand(output_padding, a.spatial, 0, &a.output_padding)) return std::nullopt;
    for (int64_t d = 0; d < a.spatial; ++d) {  // ATen's rule; its check raises the error
      if (a.output_padding[d] >= a.stride[d] && a.output_padding[d] >= a.dilation[d]) return std::nullopt;
    }
  } else {
    a.output_padding.assign(a.spatial, 0);
  }
  // cudnn_conv_suggest_memory_format: channels-last when either operand is (4-D and 5-D only).
  if (nd == 4 && (input.suggest_memory_format() == at::MemoryFormat::ChannelsLast ||
                  weight.suggest_memory_format() == at::MemoryFormat::ChannelsLast)) {
    a.format = at::MemoryFormat::ChannelsLast;
  } else if (nd == 5 && (input.suggest_memory_format() == at::MemoryFormat::ChannelsLast3d ||
                         weight.suggest_memory_format() == at::MemoryFormat::ChannelsLast3d)) {
    a.format = at::MemoryFormat::ChannelsLast3d;
  }
  return a;
}

// The scalars every convolution op takes (adapter.h): groups, allow_tf32, then stride, padding, dilation
// per spatial dim.
void add_scalars(KernelArgs& args, const ConvArgs& a) {
  args.scalar(a.groups).scalar(at::globalContext().allowTF32CuDNN());
  for (int64_t d = 0; d < a.spatial; ++d) args.scalar(a.stride[d]).scalar(a.padding[d]).scalar(a.dilation[d]);
}

// The spatial sizes of a convolution's output from its input (ATen's conv_output_size), or of a transposed
// convolution's (conv_input_size); nullopt when one is not positive.
std::optional<c10::SmallVector<int64_t, 5>> output_shape(const at::Tensor& input, const at::Tensor& weight,
                                                         const ConvArgs& a) {
  c10::SmallVector<int64_t, 5> shape = {input.size(0),
                                        a.transposed ? weight.size(1) * a.groups : weight.size(0)};
  for (int64_t d = 0; d < a.spatial; ++d) {
    const int64_t s = input.size(d + 2), k = weight.size(d + 2);
    const int64_t q = a.transposed
                          ? (s - 1) * a.stride[d] - 2 * a.padding[d] + a.dilation[d] * (k - 1) + a.output_padding[d] + 1
                          : (s + 2 * a.padding[d] - a.dilation[d] * (k - 1) - 1) / a.stride[d] + 1;
    if (q < 1 || (!a.transposed && s + 2 * a.padding[d] < a.dilation[d] * (k - 1) + 1)) return std::nullopt;
    shape.push_back(q);
  }
  return shape;
}

// A transposed convolution's input rows the kernel's geometry needs beyond the input's own, per spatial dim.
// The kernels see a transposed convolution as the gradient of the forward one whose output is the transposed
// one's input, and require that size to be floor(span / stride) + 1 of the transposed output; an output_padding
// of a stride or more (ATen allows up to the dilation) makes that output_padding / stride rows more. Those rows
// are zeros: they add nothing to the output or to the weight gradient, and their input gradient is dropped.
c10::SmallVector<int64_t, 3> extra_input_rows(const ConvArgs& a) {
  c10::SmallVector<int64_t, 3> extra;
  for (int64_t d = 0; d < a.spatial; ++d) extra.push_back(a.transposed ? a.output_padding[d] / a.stride[d] : 0);
  return extra;
}
bool any_extra(const c10::SmallVector<int64_t, 3>& extra) {
  return std::any_of(extra.begin(), extra.end(), [](int64_t e) { return e > 0; });
}
// x [N, C, spatial...] with `extra` zero rows after its own along each spatial dim, dense in a.format.
at::Tensor with_extra_rows(const at::Tensor& x, const c10::SmallVector<int64_t, 3>& extra, const ConvArgs& a) {
  if (!any_extra(extra)) return x.contiguous(a.format);
  c10::SmallVector<int64_t, 5> shape(x.sizes().begin(), x.sizes().end());
  for (int64_t d = 0; d < a.spatial; ++d) shape[d + 2] += extra[d];
  at::Tensor padded = at::zeros(shape, x.options().memory_format(a.format));
  at::Tensor inner = padded;
  for (int64_t d = 0; d < a.spatial; ++d) inner = inner.narrow(d + 2, 0, x.size(d + 2));
  inner.copy_(x);
  return padded;
}

// One adapter launch: `op` with inputs a, b and the output `out`.
bool launch_conv(hal_op_t op, const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, const ConvArgs& c) {
  KernelArgs args;
  args.input(a).input(b).output(out);
  add_scalars(args, c);
  return launch(out.device().index(), op, args);
}

// bias [O] added to y [N, O, ...] in place.
void add_bias(at::Tensor& y, const at::Tensor& bias) {
  c10::SmallVector<int64_t, 5> shape(y.dim(), 1);
  shape[1] = bias.numel();
  y.add_(bias.reshape(shape));
}

std::optional<at::Tensor> convolution(const at::Tensor& input, const at::Tensor& weight,
                                      const std::optional<at::Tensor>& bias, c10::SymIntArrayRef stride,
                                      c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation, bool transposed,
                                      c10::SymIntArrayRef output_padding, c10::SymInt groups) {
  const auto a = conv_args(input, weight, stride, padding, dilation, transposed, output_padding, groups);
  if (!a) return std::nullopt;
  // The channel counts ATen's checks require (the fallback raises its errors for the rest).
  const int64_t in_channels = transposed ? weight.size(0) : weight.size(1) * a->groups;
  const int64_t out_channels = transposed ? weight.size(1) * a->groups : weight.size(0);
  if (input.size(1) != in_channels || weight.size(0) % a->groups != 0) {
    return std::nullopt;
  }
  const bool has_bias = bias.has_value() && bias->defined();
  if (has_bias && (bias->scalar_type() != input.scalar_type() || bias->numel() != out_channels)) return std::nullopt;
  const auto shape = output_shape(input, weight, *a);
  if (!shape) return std::nullopt;
  const at::Tensor x = with_extra_rows(input, extra_input_rows(*a), *a), w = weight.contiguous(a->format);
  at::Tensor y = at::empty(*shape, x.options().memory_format(a->format));
  const bool ran = transposed ? launch_conv(HAL_OP_CONVOLUTION_BACKWARD_INPUT, x, w, y, *a)
                              : launch_conv(HAL_OP_CONVOLUTION, x, w, y, *a);
  if (!ran) return std::nullopt;
  if (has_bias) add_bias(y, *bias);
  return y;
}

std::optional<Tensors3> convolution_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                             const at::Tensor& weight, at::OptionalSymIntArrayRef bias_sizes,
                                             c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
                                             c10::SymIntArrayRef dilation, bool transposed,
                                             c10::SymIntArrayRef output_padding, c10::SymInt groups,
                                             std::array<bool, 3> output_mask) {
  (void)bias_sizes;  // the bias gradient has grad_output's channel count
  const auto a = conv_args(input, weight, stride, padding, dilation, transposed, output_padding, groups);
  if (!a || grad_output.scalar_type() != input.scalar_type() || grad_output.dim() != input.dim()) {
    return std::nullopt;
  }
  const auto shape = output_shape(input, weight, *a);
  if (!shape || grad_output.sizes() != at::IntArrayRef(*shape)) return std::nullopt;
  const at::Tensor dy = grad_output.contiguous(a->format);
  const auto extra = extra_input_rows(*a);
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const at::Tensor w = weight.contiguous(a->format);
    c10::SmallVector<int64_t, 5> computed(input.sizes().begin(), input.sizes().end());
    for (int64_t d = 0; d < a->spatial; ++d) computed[d + 2] += extra[d];
    grad_input = at::empty(computed, input.options().memory_format(a->format));
    const bool ran = transposed ? launch_conv(HAL_OP_CONVOLUTION, dy, w, grad_input, *a)
                                : launch_conv(HAL_OP_CONVOLUTION_BACKWARD_INPUT, dy, w, grad_input, *a);
    if (!ran) return std::nullopt;
    if (any_extra(extra)) {  // the zero rows' gradient dropped
      for (int64_t d = 0; d < a->spatial; ++d) grad_input = grad_input.narrow(d + 2, 0, input.size(d + 2));
      grad_input = grad_input.contiguous(a->format);
    }
  }
  if (output_mask[1]) {
    const at::Tensor x = with_extra_rows(input, extra, *a);
    grad_weight = at::empty(weight.sizes(), weight.options().memory_format(a->format));
    const bool ran = transposed ? launch_conv(HAL_OP_CONVOLUTION_BACKWARD_WEIGHT, dy, x, grad_weight, *a)
                                : launch_conv(HAL_OP_CONVOLUTION_BACKWARD_WEIGHT, x, dy, grad_weight, *a);
    if (!ran) return std::nullopt;
  }
  if (output_mask[2]) {
    c10::SmallVector<int64_t, 5> dims = {0};
    for (int64_t d = 2; d < dy.dim(); ++d) dims.push_back(d);
    grad_bias = at::sum(dy, dims);
  }
  return Tensors3(std::move(grad_input), std::move(grad_weight), std::move(grad_bias));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, convolution, "convolution", launches(HAL_OP_CONVOLUTION, HAL_OP_CONVOLUTION_BACKWARD_INPUT),
             convolution);
  HAL_NATIVE(m, convolution_backward, "convolution_backward",
             launches(HAL_OP_CONVOLUTION, HAL_OP_CONVOLUTION_BACKWARD_INPUT, HAL_OP_CONVOLUTION_BACKWARD_WEIGHT),
             convolution_backward);
}

}  // namespace torch_hal::native
