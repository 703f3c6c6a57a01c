// 3-D max and average pooling (F.max_pool3d with indices, F.avg_pool3d) and their backward ops from native views,
// reductions and index_add / scatter_add. The input, padded (with the dtype's lowest value for max pooling,
// with zeros for average pooling, and on the right as far as ceil_mode's last window reaches), is seen through
// an as_strided view of its windows [N, C, oD, oH, oW, kD, kH, kW]; max takes each window's first largest
// element (as the CPU's strict comparison does) and turns its place in the window into the input's flat index;
// average sums each window in float32 or wider and divides by ATen's divisor (count_include_pad, ceil_mode's
// clipped windows, divisor_override), built per dimension on the host. The backward ops add each output
// gradient back: scatter_add at the max indices, index_add over every window position (divided by the divisor)
// for the average. ATen's own checks first (Pool.h). ATen's CPU kernels were all these ops had.
#include <ATen/TensorOperators.h>
#include <ATen/native/Pool.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/Dispatch.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <array>
#include <limits>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// One spatial dimension of the pooling.
struct PoolAxis {
  int64_t input, kernel, stride, padding, dilation, output;
  int64_t right_padding() const {  // enough for the last window (ceil_mode may reach past the padding)
    return std::max(padding, (output - 1) * stride + (kernel - 1) * dilation + 1 - input - padding);
  }
};
using Axes = std::array<PoolAxis, 3>;

int64_t entry(at::IntArrayRef v, size_t i, int64_t fallback) { return v.empty() ? fallback : v.size() == 1 ? v[0] : v[i]; }

// The three axes of a 4-D or 5-D input, with ATen's argument and shape checks (the same errors).
Axes axes_of(const at::Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
             at::IntArrayRef dilation, bool ceil_mode, const char* name) {
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 3, name,
              ": kernel_size must either be a single int, or a tuple of three ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3, name,
              ": stride must either be omitted, a single int, or a tuple of three ints");
  TORCH_CHECK(padding.size() == 1 || padding.size() == 3, name,
              ": padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dilation.size() == 1 || dilation.size() == 3, name,
              ": dilation must be either a single int, or a tuple of three ints");
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  Axes a;
  for (size_t i = 0; i < 3; ++i) {
    const int64_t k = entry(kernel, i, 1);
    a[i] = {self.size(self.dim() - 3 + static_cast<int64_t>(i)), k, entry(stride, i, k), entry(padding, i, 0),
            entry(dilation, i, 1), 0};
    a[i].output = at::native::pooling_output_shape<int64_t>(a[i].input, a[i].kernel, a[i].padding, a[i].stride,
                                                            a[i].dilation, ceil_mode);
  }
  at::native::pool3d_shape_check(self, self.size(self.dim() - 4), a[0].kernel, a[1].kernel, a[2].kernel,
                                 a[0].stride, a[1].stride, a[2].stride, a[0].padding, a[1].padding, a[2].padding,
                                 a[0].dilation, a[1].dilation, a[2].dilation, a[0].input, a[1].input, a[2].input,
                                 a[0].output, a[1].output, a[2].output, name);
  return a;
}

at::Tensor batched(const at::Tensor& t) { return t.dim() == 5 ? t : t.unsqueeze(0); }

// x [N, C, D, H, W] padded with `value`, seen as its windows [N, C, oD, oH, oW, kD, kH, kW].
at::Tensor windows_of(const at::Tensor& x, const Axes& a, const at::Scalar& value) {
  const at::Tensor padded = at::constant_pad_nd(x, {a[2].padding, a[2].right_padding(), a[1].padding,
                                                    a[1].right_padding(), a[0].padding, a[0].right_padding()},
                                                value)
                                .contiguous();
  std::vector<int64_t> sizes{padded.size(0), padded.size(1)}, strides{padded.stride(0), padded.stride(1)};
  for (int i = 0; i < 3; ++i) {
    sizes.push_back(a[i].output);
    strides.push_back(a[i].stride * padded.stride(2 + i));
  }
  for (int i = 0; i < 3; ++i) {
    sizes.push_back(a[i].kernel);
    strides.push_back(a[i].dilation * padded.stride(2 + i));
  }
  return padded.as_strided(sizes, strides);
}

int64_t kernel_volume(const Axes& a) { return a[0].kernel * a[1].kernel * a[2].kernel; }

// For each (output position, window position): the padded input's coordinate along axis i, as a tensor shaped to
// broadcast over [oD, oH, oW, kD, kH, kW].
at::Tensor coordinate(const Axes& a, int i, const at::TensorOptions& options) {
  std::vector<int64_t> out_shape(6, 1), tap_shape(6, 1);
  out_shape[static_cast<size_t>(i)] = a[i].output;
  tap_shape[static_cast<size_t>(3 + i)] = a[i].kernel;
  return at::arange(a[i].output, options).mul_(a[i].stride).reshape(out_shape) +
         at::arange(a[i].kernel, options).mul_(a[i].dilation).reshape(tap_shape);
}

bool floating_or_integral(const at::Tensor& t) {
  return at::isFloatingType(t.scalar_type()) || at::isIntegralType(t.scalar_type(), /*includeBool=*/false);
}

// ---- max pooling ----------------------------------------------------------------------------------------------

std::optional<std::tuple<at::Tensor, at::Tensor>> native_max_pool3d(const at::Tensor& self, at::IntArrayRef kernel,
                                                                    at::IntArrayRef stride, at::IntArrayRef padding,
                                                                    at::IntArrayRef dilation, bool ceil_mode) {
  const Axes a = axes_of(self, kernel, stride, padding, dilation, ceil_mode, "max_pool3d_with_indices()");
  if (!floating_or_integral(self)) return std::nullopt;
  const at::Tensor x = batched(self);
  const int64_t n = x.size(0), c = x.size(1);
  const std::vector<int64_t> out_shape{n, c, a[0].output, a[1].output, a[2].output};
  if (x.numel() == 0) {
    at::Tensor values = at::empty(out_shape, self.options()), indices = at::empty(out_shape, self.options().dtype(at::kLong));
    return std::make_tuple(self.dim() == 5 ? values : values.squeeze(0), self.dim() == 5 ? indices : indices.squeeze(0));
  }
  at::Scalar lowest;
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "hal_max_pool3d", [&] {
    lowest = std::numeric_limits<scalar_t>::has_infinity ? -std::numeric_limits<scalar_t>::infinity()
                                                         : std::numeric_limits<scalar_t>::lowest();
  });
  const int64_t volume = kernel_volume(a);
  const at::Tensor windows = windows_of(x, a, lowest).reshape({n, c, a[0].output, a[1].output, a[2].output, volume});
  auto [values, tap] = windows.max(-1);
  // The chosen element's input coordinates; a window whose largest value is the padding's (every real element
  // equal to the lowest value) takes its first element inside the input, as the CPU's scan of real elements does.
  const auto long_options = self.options().dtype(at::kLong);
  at::Tensor flat = at::zeros({1, 1, 1, 1, 1, 1}, long_options);
  at::Tensor inside = at::ones({1, 1, 1, 1, 1, 1}, self.options().dtype(at::kBool));
  for (int i = 0; i < 3; ++i) {
    const at::Tensor position = coordinate(a, i, long_options) - a[i].padding;
    inside = inside.logical_and(position.ge(0).logical_and(position.lt(a[i].input)));
    flat = flat * a[i].input + position;
  }
  const std::vector<int64_t> per_window{1, 1, a[0].output, a[1].output, a[2].output, volume};
  flat = flat.reshape(per_window).expand({n, c, a[0].output, a[1].output, a[2].output, volume});
  inside = inside.reshape(per_window).expand_as(flat);
  const at::Tensor chosen_inside = inside.gather(-1, tap.unsqueeze(-1)).squeeze(-1);
  const at::Tensor first_inside = inside.to(at::kByte).argmax(-1);
  tap = at::where(chosen_inside, tap, first_inside);
  at::Tensor indices = flat.gather(-1, tap.unsqueeze(-1)).squeeze(-1);
  values = windows.gather(-1, tap.unsqueeze(-1)).squeeze(-1);
  if (self.dim() == 4) return std::make_tuple(values.squeeze(0), indices.squeeze(0));
  return std::make_tuple(values.contiguous(self.suggest_memory_format()), indices.contiguous(self.suggest_memory_format()));
}
std::optional<std::tuple<at::Tensor&, at::Tensor&>> native_max_pool3d_out(
    const at::Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
    at::IntArrayRef dilation, bool ceil_mode, at::Tensor& out, at::Tensor& indices) {
  auto result = native_max_pool3d(self, kernel, stride, padding, dilation, ceil_mode);
  if (!result || !write_out(std::get<0>(*result), out) || !write_out(std::get<1>(*result), indices)) {
    return std::nullopt;
  }
  return std::tuple<at::Tensor&, at::Tensor&>(out, indices);
}

std::optional<at::Tensor> native_max_pool3d_backward(const at::Tensor& grad, const at::Tensor& self,
                                                     at::IntArrayRef kernel, at::IntArrayRef stride,
                                                     at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                                                     const at::Tensor& indices) {
  axes_of(self, kernel, stride, padding, dilation, ceil_mode, "max_pool3d_with_indices_backward()");
  if (!at::isFloatingType(grad.scalar_type()) || indices.sizes() != grad.sizes()) return std::nullopt;
  const at::Tensor x = batched(self), g = batched(grad), where_from = batched(indices);
  const int64_t n = x.size(0), c = x.size(1), plane = x.size(2) * x.size(3) * x.size(4);
  at::Tensor grad_input = at::zeros({n, c, plane}, grad.options());
  const int64_t outputs = g.numel() / std::max<int64_t>(n * c, 1);
  grad_input.scatter_add_(2, where_from.reshape({n, c, outputs}), g.reshape({n, c, outputs}));
  grad_input = grad_input.view(x.sizes());
  return self.dim() == 5 ? grad_input.contiguous(self.suggest_memory_format()) : grad_input.squeeze(0);
}
bool native_max_pool3d_backward_out(const at::Tensor& grad, const at::Tensor& self, at::IntArrayRef kernel,
                                    at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
                                    bool ceil_mode, const at::Tensor& indices, at::Tensor& grad_input) {
  return write_out(native_max_pool3d_backward(grad, self, kernel, stride, padding, dilation, ceil_mode, indices),
                   grad_input);
}

// ---- average pooling ------------------------------------------------------------------------------------------

// Each output position's divisor, [oD, oH, oW] in float64 on the device: ATen's per-dimension window lengths
// (the padded window clipped to input + padding, or to the input without count_include_pad), multiplied.
at::Tensor divisors(const Axes& a, bool count_include_pad, std::optional<int64_t> divisor_override,
                    const at::TensorOptions& options) {
  if (divisor_override.has_value()) return at::full({1, 1, 1}, static_cast<double>(*divisor_override), options);
  std::array<std::vector<double>, 3> lengths;
  for (int i = 0; i < 3; ++i) {
    for (int64_t o = 0; o < a[i].output; ++o) {
      const int64_t start = o * a[i].stride - a[i].padding;
      const int64_t end = std::min(start + a[i].kernel, a[i].input + a[i].padding);
      const int64_t clipped = std::min(end, a[i].input) - std::max<int64_t>(start, 0);
      lengths[static_cast<size_t>(i)].push_back(static_cast<double>(count_include_pad ? end - start : clipped));
    }
  }
  at::Tensor d = at::ones({1, 1, 1}, options);
  for (int i = 0; i < 3; ++i) {
    std::vector<int64_t> shape{1, 1, 1};
    shape[static_cast<size_t>(i)] = a[i].output;
    auto& v = lengths[static_cast<size_t>(i)];
    d = d * at::from_blob(v.data(), shape, at::kDouble).to(options.device(), options.dtype().toScalarType());
  }
  return d.clamp_min_(1);  // an empty clipped window's sum is 0: 0 / 1, as the CPU writes 0 there
}

at::ScalarType accumulation_type(const at::Tensor& t) { return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat; }

std::optional<at::Tensor> native_avg_pool3d(const at::Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                            at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                            std::optional<int64_t> divisor_override) {
  const Axes a = axes_of(self, kernel, stride, padding, {1}, ceil_mode, "avg_pool3d()");
  TORCH_CHECK(!divisor_override.has_value() || *divisor_override != 0, "divisor must be not zero");
  if (!at::isFloatingType(self.scalar_type())) return std::nullopt;
  const at::Tensor x = batched(self);
  const at::ScalarType acc = accumulation_type(self);
  const at::Tensor sums = windows_of(x, a, 0).sum({-3, -2, -1}, /*keepdim=*/false, acc);
  const at::Tensor result =
      (sums / divisors(a, count_include_pad, divisor_override, self.options().dtype(acc))).to(self.scalar_type());
  return self.dim() == 5 ? result.contiguous(self.suggest_memory_format()) : result.squeeze(0);
}
bool native_avg_pool3d_out(const at::Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                           at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override, at::Tensor& out) {
  return write_out(native_avg_pool3d(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override),
                   out);
}

std::optional<at::Tensor> native_avg_pool3d_backward(const at::Tensor& grad, const at::Tensor& self,
                                                     at::IntArrayRef kernel, at::IntArrayRef stride,
                                                     at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                                     std::optional<int64_t> divisor_override) {
  const Axes a = axes_of(self, kernel, stride, padding, {1}, ceil_mode, "avg_pool3d_backward()");
  if (!at::isFloatingType(grad.scalar_type())) return std::nullopt;
  const at::Tensor x = batched(self), g = batched(grad);
  const int64_t n = x.size(0), c = x.size(1);
  const at::ScalarType acc = accumulation_type(grad);
  const at::Tensor share = g.to(acc) / divisors(a, count_include_pad, divisor_override, grad.options().dtype(acc));
  // Every (output position, window position)'s flat place in the padded input, and the share it adds there.
  const auto long_options = grad.options().dtype(at::kLong);
  std::array<int64_t, 3> padded{};
  at::Tensor flat = at::zeros({1, 1, 1, 1, 1, 1}, long_options);
  for (int i = 0; i < 3; ++i) {
    padded[static_cast<size_t>(i)] = a[i].input + a[i].padding + a[i].right_padding();
    flat = flat * padded[static_cast<size_t>(i)] + coordinate(a, i, long_options);
  }
  const int64_t volume = kernel_volume(a);
  const at::Tensor spread = share.reshape({n, c, a[0].output, a[1].output, a[2].output, 1})
                                .expand({n, c, a[0].output, a[1].output, a[2].output, volume});
  at::Tensor image = at::zeros({n * c, padded[0] * padded[1] * padded[2]}, grad.options().dtype(acc));
  const int64_t taps = a[0].output * a[1].output * a[2].output * volume;
  image.index_add_(1, flat.reshape({taps}), spread.reshape({n * c, taps}));
  at::Tensor grad_input = image.view({n, c, padded[0], padded[1], padded[2]})
                              .narrow(2, a[0].padding, a[0].input)
                              .narrow(3, a[1].padding, a[1].input)
                              .narrow(4, a[2].padding, a[2].input)
                              .to(grad.scalar_type());
  return self.dim() == 5 ? grad_input.contiguous(self.suggest_memory_format()) : grad_input.squeeze(0).contiguous();
}
bool native_avg_pool3d_backward_out(const at::Tensor& grad, const at::Tensor& self, at::IntArrayRef kernel,
                                    at::IntArrayRef stride, at::IntArrayRef padding, bool ceil_mode,
                                    bool count_include_pad, std::optional<int64_t> divisor_override,
                                    at::Tensor& grad_input) {
  return write_out(native_avg_pool3d_backward(grad, self, kernel, stride, padding, ceil_mode, count_include_pad,
                                              divisor_override),
                   grad_input);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, max_pool3d_with_indices, "max_pool3d_with_indices", launches(), native_max_pool3d);
  HAL_NATIVE(m, max_pool3d_with_indices_out, "max_pool3d_with_indices.out", launches(), native_max_pool3d_out);
  HAL_NATIVE(m, max_pool3d_with_indices_backward, "max_pool3d_with_indices_backward", launches(),
             native_max_pool3d_backward);
  HAL_NATIVE(m, max_pool3d_with_indices_backward_grad_input, "max_pool3d_with_indices_backward.grad_input",
             launches(), native_max_pool3d_backward_out);
  HAL_NATIVE(m, avg_pool3d, "avg_pool3d", launches(), native_avg_pool3d);
  HAL_NATIVE(m, avg_pool3d_out, "avg_pool3d.out", launches(), native_avg_pool3d_out);
  HAL_NATIVE(m, avg_pool3d_backward, "avg_pool3d_backward", launches(), native_avg_pool3d_backward);
  HAL_NATIVE(m, avg_pool3d_backward_grad_input, "avg_pool3d_backward.grad_input", launches(),
             native_avg_pool3d_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
