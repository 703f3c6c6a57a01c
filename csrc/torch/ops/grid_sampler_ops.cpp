// grid_sampler_2d / grid_sampler_3d (F.grid_sample) and their backward ops, composed from elementwise ops, gathers
// and reductions, with scatter_add for the input's gradient. ATen gives them CPU kernels of their own, so without
// these they took the CPU fallback.
//
// Each output point reads a few input points (taps): 2 per spatial dim for bilinear, 1 for nearest, 4 for bicubic
// (2-D only). Per dim, the grid value g in [-1, 1] becomes a source coordinate x (unnormalized to [0, size - 1]
// with align_corners, else [-0.5, size - 0.5]; then clipped to the border or reflected and clipped, as padding_mode
// says); the taps are floor(x) and floor(x) + 1 with weights 1 - frac and frac, round(x) (half to even), or
// floor(x) - 1 .. floor(x) + 2 with the cubic convolution weights (A = -0.75), whose tap coordinates are padded one
// by one. A tap outside the input reads 0. The output is the sum over the taps of weight times the gathered value,
// every tap one gather of [N, C, Q] (Q the output points) from the flattened input.
//
// The backward: the input's gradient scatter-adds grad * weight to each tap (atomics: devices without them take
// the fallback for that op alone); the grid's gradient is, per dim, the sum over taps and channels of grad *
// value * d(weight)/dx, times dx/dg: the unnormalization's scale, 0 where the clip holds the coordinate (the
// border itself counts as clipped, as in ATen) and -1 where a reflection reverses it. Nearest has no grid gradient.
//
// The coordinate formulas are the CPU kernels' (GridSamplerKernel.cpp's vectorized 2-D path; the 3-D kernel's
// scalar form is the same arithmetic), so values agree to float rounding. Float32 and float64 only; other dtypes
// and invalid arguments keep ATen's route (its checks raise first here where they are shared).
#include <ATen/native/GridSamplerUtils.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/util/accumulate.h>
#include <torch/library.h>

#include <array>
#include <functional>
#include <optional>
#include <vector>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

using at::native::GridSamplerInterpolation;
using at::native::GridSamplerPadding;

struct Sampling {
  GridSamplerInterpolation interpolation;
  GridSamplerPadding padding;
  bool align_corners;
};

// One spatial dim: its input size and grid component ([N, Q]).
struct Axis {
  int64_t size;
  at::Tensor grid;
};

// The masks below are 0/1 in the floating type and combine by products: bool's logical ops are not kernels on
// every device (where() with a comparison's bool condition is).
at::Tensor mask_of(const at::Tensor& condition, const at::Tensor& like) { return condition.to(like.scalar_type()); }

// A coordinate held inside [0, size - 1], and d(result)/d(coordinate): 0 at and beyond the border. NaN clips to
// 0 as in the 2-D CPU kernel.
std::pair<at::Tensor, at::Tensor> clip(const at::Tensor& x, int64_t size) {
  const double high = static_cast<double>(size - 1);
  const at::Tensor clipped = at::where(x.isnan(), at::zeros({}, x.options()), x.clamp(0.0, high));
  return {clipped, mask_of(x.gt(0.0), x).mul(mask_of(x.lt(high), x))};
}

// x reflected into [low, low + span] (low = 0, span = size - 1 with align_corners, else -0.5 and size), and its
// derivative, +-1.
std::pair<at::Tensor, at::Tensor> reflect(const at::Tensor& x, int64_t size, bool align_corners) {
  if (align_corners && size <= 1) return {at::zeros_like(x), at::zeros_like(x)};
  const double low = align_corners ? 0.0 : -0.5;
  const double twice_span = align_corners ? 2.0 * static_cast<double>(size - 1) : 2.0 * static_cast<double>(size);
  const at::Tensor shifted = x.sub(low);
  const at::Tensor distance = shifted.abs();
  const at::Tensor extra = distance.sub(distance.div(twice_span).trunc().mul(twice_span));
  const at::Tensor reflected_extra = extra.neg().add(twice_span);
  const at::Tensor one_more_flip = extra.gt(reflected_extra);
  const at::Tensor reflected = at::where(one_more_flip, reflected_extra, extra).add(low);
  // -1 where exactly one of "one more flip" and "x below low" holds, else 1.
  const at::Tensor reversed = mask_of(one_more_flip, x).sub(mask_of(shifted.lt(0.0), x)).abs();
  return {reflected, reversed.mul(-2.0).add(1.0)};
}

// A tap coordinate (or, for bilinear and nearest, the source coordinate) after padding: clipped, or reflected and
// clipped; with d(result)/d(x).
std::pair<at::Tensor, at::Tensor> padded(const at::Tensor& x, int64_t size, const Sampling& s) {
  if (s.padding == GridSamplerPadding::Border) return clip(x, size);
  if (s.padding == GridSamplerPadding::Reflection) {
    auto [reflected, reflect_grad] = reflect(x, size, s.align_corners);
    auto [clipped, clip_grad] = clip(reflected, size);
    return {clipped, reflect_grad.mul(clip_grad)};
  }
  return {x, at::ones({}, x.options())};
}

// The grid component g as a source coordinate: (g + 1) * scale (- 0.5), scale = (size - 1) / 2 with
// align_corners, else size / 2; and dx/dg.
struct Source {
  at::Tensor x, grad;
};
Source source_of(const Axis& axis, const Sampling& s) {
  const double scale = s.align_corners ? static_cast<double>(axis.size - 1) / 2 : static_cast<double>(axis.size) / 2;
  at::Tensor x = axis.grid.add(1.0).mul(scale);
  if (!s.align_corners) x = x.sub(0.5);
  if (s.interpolation == GridSamplerInterpolation::Bicubic) return {x, at::full({}, scale, x.options())};
  auto [p, p_grad] = padded(x, axis.size, s);
  return {p, p_grad.mul(scale)};
}

// The cubic convolution weights of the 4 taps at fraction t, and their derivatives in t.
constexpr double kCubicA = -0.75;
at::Tensor cubic_near(const at::Tensor& u) {  // |u| <= 1
  return u.mul(kCubicA + 2).sub(kCubicA + 3).mul(u).mul(u).add(1.0);
}
at::Tensor cubic_far(const at::Tensor& u) {  // 1 < |u| < 2
  return u.mul(kCubicA).sub(5 * kCubicA).mul(u).add(8 * kCubicA).mul(u).sub(4 * kCubicA);
}
at::Tensor cubic_near_slope(const at::Tensor& u) { return u.mul(3 * (kCubicA + 2)).sub(2 * (kCubicA + 3)).mul(u); }
at::Tensor cubic_far_slope(const at::Tensor& u) { return u.mul(3 * kCubicA).sub(10 * kCubicA).mul(u).add(8 * kCubicA); }
std::vector<at::Tensor> cubic_weights(const at::Tensor& t) {
  return {cubic_far(t.add(1.0)), cubic_near(t), cubic_near(t.neg().add(1.0)), cubic_far(t.neg().add(2.0))};
}
std::vector<at::Tensor> cubic_slopes(const at::Tensor& t) {
  return {cubic_far_slope(t.add(1.0)), cubic_near_slope(t), cubic_near_slope(t.neg().add(1.0)).neg(),
          cubic_far_slope(t.neg().add(2.0)).neg()};
}

// One dim's taps: integer-valued coordinates (padded), weights and d(weight)/dx.
struct AxisTaps {
  std::vector<at::Tensor> coordinate, weight, slope;
  at::Tensor source_grad;
};
AxisTaps taps_of(const Axis& axis, const Sampling& s, size_t spatial) {
  const Source src = source_of(axis, s);
  AxisTaps t;
  t.source_grad = src.grad;
  if (s.interpolation == GridSamplerInterpolation::Nearest) {
    t.coordinate = {src.x.round()};
    t.weight = {at::ones_like(src.x)};
    t.slope = {at::zeros_like(src.x)};
    return t;
  }
  const at::Tensor base = src.x.floor();
  const at::Tensor fraction = src.x.sub(base);
  if (s.interpolation == GridSamplerInterpolation::Bilinear) {
    t.coordinate = {base, base.add(1.0)};
    // The lower tap's weight as each CPU kernel rounds it: 1 - (x - floor x) in 2-D, (floor x + 1) - x in 3-D.
    t.weight = {spatial == 2 ? fraction.neg().add(1.0) : t.coordinate[1].sub(src.x), fraction};
    t.slope = {at::full({}, -1.0, base.options()), at::ones({}, base.options())};
    return t;
  }
  for (int k = 0; k < 4; ++k) {
    t.coordinate.push_back(padded(base.add(static_cast<double>(k - 1)), axis.size, s).first);
  }
  t.weight = cubic_weights(fraction);
  t.slope = cubic_slopes(fraction);
  return t;
}

// A tap of all dims: the flat input index (0 where outside), whether it is inside, its weight, and per dim the
// factors of d(weight)/dx: the other dims' weights, then this dim's slope.
struct Tap {
  at::Tensor index, inside, weight;
  std::vector<std::vector<at::Tensor>> slope_factors;
};

// value * d(weight)/dx_d * grad for one dim, multiplied in the CPU kernels' order (value first, grad last).
at::Tensor slope_term(at::Tensor value, const std::vector<at::Tensor>& factors, const at::Tensor& grad, bool batched) {
  for (const at::Tensor& f : factors) value = value.mul(batched && f.dim() > 0 ? f.unsqueeze(1) : f);
  return value.mul(grad);
}

// Calls `visit` for every tap; axes are ordered as the input's spatial dims (D, H, W).
void for_each_tap(const std::vector<Axis>& axes, const Sampling& s, const std::function<void(const Tap&)>& visit) {
  std::vector<AxisTaps> per_axis;
  for (const Axis& a : axes) per_axis.push_back(taps_of(a, s, axes.size()));
  const size_t dims = axes.size(), count = per_axis[0].coordinate.size();
  std::vector<size_t> pick(dims, 0);
  // The products of the dims' weights in the CPU kernels' order: H then W in 2-D, W, H, D in 3-D.
  std::vector<size_t> order(dims);
  for (size_t k = 0; k < dims; ++k) order[k] = dims == 2 ? k : dims - 1 - k;
  while (true) {
    Tap tap;
    at::Tensor inside;
    for (size_t d = 0; d < dims; ++d) {
      const at::Tensor& c = per_axis[d].coordinate[pick[d]];
      const at::Tensor in_dim = mask_of(c.ge(0.0), c).mul(mask_of(c.le(static_cast<double>(axes[d].size - 1)), c));
      const at::Tensor i = at::where(in_dim.gt(0.5), c, at::zeros({}, c.options())).to(at::kLong);
      tap.index = d == 0 ? i : tap.index.mul(axes[d].size).add(i);
      inside = d == 0 ? in_dim : inside.mul(in_dim);
    }
    tap.inside = inside.gt(0.5);
    for (size_t k = 0; k < dims; ++k) {
      const at::Tensor& w = per_axis[order[k]].weight[pick[order[k]]];
      tap.weight = k == 0 ? w : tap.weight.mul(w);
    }
    for (size_t d = 0; d < dims; ++d) {
      std::vector<at::Tensor> factors;
      for (size_t k = 0; k < dims; ++k) {
        if (order[k] != d) factors.push_back(per_axis[order[k]].weight[pick[order[k]]]);
      }
      factors.push_back(per_axis[d].slope[pick[d]]);
      tap.slope_factors.push_back(std::move(factors));
    }
    visit(tap);
    size_t d = dims;  // the next combination, the last dim fastest
    while (d > 0 && ++pick[d - 1] == count) pick[--d] = 0;
    if (d == 0) break;
  }
}

bool samplable(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation, int64_t padding) {
  return (input.scalar_type() == at::kFloat || input.scalar_type() == at::kDouble) &&
         grid.scalar_type() == input.scalar_type() && interpolation >= 0 && interpolation <= 2 && padding >= 0 &&
         padding <= 2;
}

// The grid's components as axes in the input's spatial order (the grid's last dim holds x = W first).
std::vector<Axis> axes_of(const at::Tensor& input, const at::Tensor& grid) {
  const int64_t spatial = input.dim() - 2, n = grid.size(0);
  const at::Tensor points = grid.reshape({n, -1, spatial});
  std::vector<Axis> axes;
  for (int64_t d = 0; d < spatial; ++d) axes.push_back({input.size(2 + d), points.select(2, spatial - 1 - d)});
  return axes;
}

// The gathered values of a tap, [N, C, Q], 0 outside.
at::Tensor values_at(const at::Tensor& flat_input, const Tap& tap) {
  const at::Tensor index = tap.index.unsqueeze(1).expand({flat_input.size(0), flat_input.size(1), tap.index.size(1)});
  return at::where(tap.inside.unsqueeze(1), flat_input.gather(2, index), at::zeros({}, flat_input.options()));
}

std::vector<int64_t> output_shape(const at::Tensor& input, const at::Tensor& grid) {
  std::vector<int64_t> shape = {input.size(0), input.size(1)};
  for (int64_t d = 1; d < grid.dim() - 1; ++d) shape.push_back(grid.size(d));
  return shape;
}

std::optional<at::Tensor> grid_sample(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation,
                                      int64_t padding, bool align_corners) {
  const std::vector<int64_t> shape = output_shape(input, grid);
  if (input.size(1) == 0 || c10::multiply_integers(shape) == 0) return at::zeros(shape, input.options());
  const Sampling s{static_cast<GridSamplerInterpolation>(interpolation), static_cast<GridSamplerPadding>(padding),
                   align_corners};
  const at::Tensor flat_input = input.reshape({input.size(0), input.size(1), -1});
  at::Tensor out;
  for_each_tap(axes_of(input, grid), s, [&](const Tap& tap) {
    const at::Tensor term = values_at(flat_input, tap).mul(tap.weight.unsqueeze(1));
    out = out.defined() ? out.add_(term) : term;
  });
  return out.view(shape);
}

using Gradients = std::tuple<at::Tensor, at::Tensor>;

std::optional<Gradients> grid_sample_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                              const at::Tensor& grid, int64_t interpolation, int64_t padding,
                                              bool align_corners, std::array<bool, 2> output_mask) {
  if (grad_output.scalar_type() != input.scalar_type() ||
      grad_output.sizes() != at::IntArrayRef(output_shape(input, grid))) {
    return std::nullopt;
  }
  at::Tensor grad_input = output_mask[0] ? at::zeros_like(input, at::MemoryFormat::Contiguous) : at::Tensor();
  at::Tensor grad_grid = at::zeros_like(grid, at::MemoryFormat::Contiguous);
  if (input.size(1) == 0 || grad_output.numel() == 0) return Gradients(grad_input, grad_grid);
  const Sampling s{static_cast<GridSamplerInterpolation>(interpolation), static_cast<GridSamplerPadding>(padding),
                   align_corners};
  const int64_t n = input.size(0), c = input.size(1), spatial = input.dim() - 2;
  const at::Tensor flat_input = input.reshape({n, c, -1});
  const at::Tensor flat_grad = grad_output.reshape({n, c, -1});
  const at::Tensor flat_grad_input = output_mask[0] ? grad_input.view({n, c, -1}) : at::Tensor();
  const std::vector<Axis> axes = axes_of(input, grid);
  std::vector<Tap> taps;
  for_each_tap(axes, s, [&](const Tap& tap) { taps.push_back(tap); });
  if (output_mask[0]) {
    // One scatter of [N, C, Q x taps], each point's taps together: the CPU kernels' order of the additions where
    // points share an input element (a serial scatter keeps it; the clipped borders gather many).
    std::vector<at::Tensor> indices, contributions;
    for (const Tap& tap : taps) {
      indices.push_back(tap.index);
      contributions.push_back(at::where(tap.inside.unsqueeze(1), flat_grad.mul(tap.weight.unsqueeze(1)),
                                        at::zeros({}, flat_grad.options())));
    }
    const at::Tensor index = at::stack(indices, -1).unsqueeze(1).expand({n, c, -1, -1}).reshape({n, c, -1});
    flat_grad_input.scatter_add_(2, index, at::stack(contributions, -1).reshape({n, c, -1}));
  }
  if (s.interpolation == GridSamplerInterpolation::Nearest) return Gradients(grad_input, grad_grid);
  // d(loss)/dx per dim, [N, Q]. The 3-D CPU kernel adds each channel's and tap's term in turn, and float32 sums of
  // this length (channels x 8) round differently in any other order by more than float32's tolerance, so 3-D
  // keeps that order: a loop over the channels. The 2-D kernel sums per channel too but groups the taps by
  // pairs; there the taps summed per channel, then the channels, stay within it.
  std::vector<at::Tensor> d_source(spatial);
  const auto accumulate = [](at::Tensor& sum, const at::Tensor& term) { sum = sum.defined() ? sum.add_(term) : term; };
  if (spatial == 3) {
    for (int64_t channel = 0; channel < c; ++channel) {
      const at::Tensor channel_input = flat_input.select(1, channel), channel_grad = flat_grad.select(1, channel);
      for (const Tap& tap : taps) {
        const at::Tensor value =
            at::where(tap.inside, channel_input.gather(1, tap.index), at::zeros({}, flat_input.options()));
        for (int64_t d = 0; d < spatial; ++d) {
          accumulate(d_source[d], slope_term(value, tap.slope_factors[d], channel_grad, false));
        }
      }
    }
  } else {
    for (const Tap& tap : taps) {
      const at::Tensor values = values_at(flat_input, tap);
      for (int64_t d = 0; d < spatial; ++d) {
        accumulate(d_source[d], slope_term(values, tap.slope_factors[d], flat_grad, true));
      }
    }
    for (at::Tensor& sum : d_source) sum = sum.sum(1);
  }
  std::vector<at::Tensor> components;  // x (W) first
  for (int64_t d = spatial - 1; d >= 0; --d) components.push_back(d_source[d].mul(source_of(axes[d], s).grad));
  grad_grid = at::stack(components, -1).view(grid.sizes());
  return Gradients(grad_input, grad_grid);
}

std::optional<at::Tensor> native_grid_sampler_2d(const at::Tensor& input, const at::Tensor& grid,
                                                 int64_t interpolation, int64_t padding, bool align_corners) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_2d(input, grid);
  if (!samplable(input, grid, interpolation, padding)) return std::nullopt;
  return grid_sample(input, grid, interpolation, padding, align_corners);
}
std::optional<at::Tensor> native_grid_sampler_3d(const at::Tensor& input, const at::Tensor& grid,
                                                 int64_t interpolation, int64_t padding, bool align_corners) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_3d(input, grid, interpolation);
  if (!samplable(input, grid, interpolation, padding)) return std::nullopt;
  return grid_sample(input, grid, interpolation, padding, align_corners);
}
std::optional<Gradients> native_grid_sampler_2d_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                         const at::Tensor& grid, int64_t interpolation,
                                                         int64_t padding, bool align_corners,
                                                         std::array<bool, 2> output_mask) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_2d(input, grid);
  if (!samplable(input, grid, interpolation, padding)) return std::nullopt;
  return grid_sample_backward(grad_output, input, grid, interpolation, padding, align_corners, output_mask);
}
std::optional<Gradients> native_grid_sampler_3d_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                         const at::Tensor& grid, int64_t interpolation,
                                                         int64_t padding, bool align_corners,
                                                         std::array<bool, 2> output_mask) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_3d(input, grid, interpolation);
  if (!samplable(input, grid, interpolation, padding)) return std::nullopt;
  return grid_sample_backward(grad_output, input, grid, interpolation, padding, align_corners, output_mask);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, grid_sampler_2d, "grid_sampler_2d", launches(), native_grid_sampler_2d);
  HAL_NATIVE(m, grid_sampler_3d, "grid_sampler_3d", launches(), native_grid_sampler_3d);
  HAL_NATIVE(m, grid_sampler_2d_backward, "grid_sampler_2d_backward", launches(), native_grid_sampler_2d_backward);
  HAL_NATIVE(m, grid_sampler_3d_backward, "grid_sampler_3d_backward", launches(), native_grid_sampler_3d_backward);
}

}  // namespace
}  // namespace torch_hal::native
