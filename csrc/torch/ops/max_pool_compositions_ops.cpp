// adaptive_max_pool3d, fractional_max_pool2d and fractional_max_pool3d and their backward ops (nn.AdaptiveMaxPool3d,
// nn.FractionalMaxPool2d/3d), composed from native gathers and reductions. ATen gives them CPU and CUDA kernels
// only, so they took the CPU fallback.
//
// All three take, along each spatial dim, a window per output position: [floor(o I / O), ceil((o + 1) I / O)) for
// adaptive pooling, [interval(o), interval(o) + k) for fractional pooling, whose intervals come from one random
// sample per plane and dim (the CPU kernel's formula, in the input's dtype). The windows, padded to the longest
// (K), are gathered one dim at a time into [P, O1, K1, O2, K2, ...] (P = the planes), the padding slots masked,
// and reduced over the K's. As the CPU kernels: NaN wins (the last NaN in window order gives the index), otherwise
// the first largest; indices are offsets into an input plane. The backward needs no atomics (windows may overlap,
// so several outputs can pick one input): each input position gathers the gradients of the few outputs whose
// window may hold it and whose index names it (gather_back below); indices are assumed to be the forward's.
//
// Window positions are compared and reduced in float32 (exact below 2^24 slots per window), which keeps the
// forward on devices whose kernels compare and reduce no int64 (OpenCL's).
#include <ATen/Dispatch.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

using Tensors2 = std::tuple<at::Tensor, at::Tensor>;

bool poolable(at::ScalarType t) { return t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16; }

// The windows along one spatial dim: per plane (or one row for all, size 1 at dim 0) and output position, the
// window's first input position and length; K the longest.
struct Windows {
  at::Tensor start;   // [P or 1, O] int64
  at::Tensor length;  // [P or 1, O] float: 0 < length <= K
  int64_t input = 0, output = 0, K = 0;
};

// Adaptive pooling's windows: the same for every plane.
Windows adaptive_windows(int64_t input, int64_t output, const at::TensorOptions& options) {
  Windows w;
  w.input = input;
  w.output = output;
  std::vector<int64_t> start(output), length(output);
  for (const int64_t o : c10::irange(output)) {
    start[o] = (o * input) / output;
    const int64_t end = ((o + 1) * input + output - 1) / output;
    length[o] = end - start[o];
    w.K = std::max(w.K, length[o]);
  }
  w.start = at::tensor(start, at::kLong).to(options.device()).view({1, output});
  w.length = at::tensor(length, at::kLong).to(options.device(), at::kFloat).view({1, output});
  return w;
}

// Fractional pooling's windows of `pool` positions, per plane: interval(o) = trunc((o + u) alpha) - trunc(u alpha)
// with alpha = (I - k) / (O - 1), the last one I - k, computed in the samples' dtype as the CPU kernel does.
Windows fractional_windows(const at::Tensor& samples, int64_t input, int64_t output, int64_t pool) {
  Windows w;
  w.input = input;
  w.output = output;
  w.K = pool;
  const int64_t planes = samples.size(0);
  at::Tensor start = at::full({planes, output}, input - pool, samples.options().dtype(at::kLong));
  if (output > 1) {
    const double alpha = AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, samples.scalar_type(), "alpha", [&] {
      return static_cast<double>(static_cast<scalar_t>(input - pool) / static_cast<scalar_t>(output - 1));
    });
    const at::Tensor u = samples.unsqueeze(1);  // [P, 1]
    const at::Tensor o = at::arange(output - 1, samples.options()).view({1, -1});
    const at::Tensor interval = o.add(u).mul_(alpha).trunc_().sub_(u.mul(alpha).trunc_());
    start.narrow(1, 0, output - 1).copy_(interval);
  }
  w.start = start;
  w.length = at::full({1, output}, static_cast<double>(pool), samples.options().dtype(at::kFloat));
  return w;
}

// max over the windows of x [P, I1, I2, ...]: (values [P, O1, O2, ...], indices into a plane).
Tensors2 window_max(const at::Tensor& x, const std::vector<Windows>& dims) {
  const int64_t P = x.size(0);
  const int64_t n = static_cast<int64_t>(dims.size());
  at::Tensor g = x;
  at::Tensor in_window;  // [.., O_d, K_d, ..] float 0/1 products, broadcast
  at::Tensor flat;       // the plane offset of each slot, int64, broadcast
  int64_t plane_stride = 1;
  for (int64_t d = n - 1; d >= 0; --d) {
    const Windows& w = dims[d];
    const at::Tensor k = at::arange(w.K, w.start.options()).view({1, 1, w.K});
    // [P or 1, O, K]: the position read (clamped into the input) and whether it is inside the window.
    const at::Tensor position = w.start.unsqueeze(2).add(k).clamp_max_(w.input - 1);
    const at::Tensor inside = k.to(at::kFloat).lt(w.length.unsqueeze(2)).to(at::kFloat);
    // Shapes for broadcasting against [P, O1, K1, ..., On, Kn]: dims other than d are 1.
    const auto broadcastable = [&](const at::Tensor& t) {
      std::vector<int64_t> shape(1 + 2 * n, 1);
      shape[0] = t.size(0);
      shape[1 + 2 * d] = w.output;
      shape[2 + 2 * d] = w.K;
      return t.view(shape);
    };
    const at::Tensor offset = broadcastable(position.mul(plane_stride));
    flat = flat.defined() ? flat.add(offset) : offset;
    in_window = in_window.defined() ? in_window.mul(broadcastable(inside)) : broadcastable(inside);
    plane_stride *= w.input;
  }
  for (const int64_t d : c10::irange(n)) {
    // Gather along spatial dim d (dim 1 + d of g): index [P, ..., O_d * K_d, ...] broadcast over the other dims.
    const Windows& w = dims[d];
    const at::Tensor k = at::arange(w.K, w.start.options()).view({1, 1, w.K});
    const at::Tensor position = w.start.unsqueeze(2).add(k).clamp_max_(w.input - 1).reshape({-1, w.output * w.K});
    std::vector<int64_t> shape(g.dim(), 1);
    shape[0] = position.size(0);
    shape[1 + d] = w.output * w.K;
    auto sizes = g.sizes().vec();
    sizes[1 + d] = w.output * w.K;
    g = g.gather(1 + d, position.view(shape).expand(sizes));
  }
  // [P, O1 K1, O2 K2, ...] -> [P, O1, ..., On, K1 * ... * Kn]
  std::vector<int64_t> split{P}, order{0}, outputs{P};
  int64_t slots = 1;
  for (const int64_t d : c10::irange(n)) {
    split.push_back(dims[d].output);
    split.push_back(dims[d].K);
    outputs.push_back(dims[d].output);
    slots *= dims[d].K;
  }
  for (const int64_t d : c10::irange(n)) order.push_back(1 + 2 * d);
  for (const int64_t d : c10::irange(n)) order.push_back(2 + 2 * d);
  std::vector<int64_t> windowed = outputs;
  windowed.push_back(slots);
  const auto arrange = [&](const at::Tensor& t) {
    return t.expand(split).permute(order).reshape(windowed);
  };
  const at::Tensor values = arrange(g.view(split));
  const at::Tensor inside = arrange(in_window).gt(0);
  const at::Tensor offsets = arrange(flat);
  // NaN wins: the last NaN's slot; else the first slot holding the largest value. Slots in float32.
  const at::Tensor slot = at::arange(slots, values.options().dtype(at::kFloat));
  const at::Tensor lowest = at::scalar_tensor(-std::numeric_limits<double>::infinity(), values.options());
  const at::Tensor candidates = at::where(inside, values, lowest);
  const at::Tensor largest = candidates.amax(-1, /*keepdim=*/true);
  const at::Tensor none = at::scalar_tensor(-1.0, slot.options()), beyond = at::scalar_tensor(slots, slot.options());
  const at::Tensor last_nan = at::where(inside, at::where(values.isnan(), slot, none), none).amax(-1, true);
  const at::Tensor first_largest = at::where(inside, at::where(values.eq(largest), slot, beyond), beyond).amin(-1, true);
  const at::Tensor chosen = at::where(last_nan.ge(0), last_nan, first_largest).to(at::kLong);
  at::Tensor indices = offsets.gather(-1, chosen).squeeze(-1);
  at::Tensor result = values.gather(-1, chosen).squeeze(-1);
  return Tensors2(std::move(result), std::move(indices));
}

// x viewed as [P, spatial...] with `spatial` spatial dims; nullopt for other ranks and empty planes.
std::optional<at::Tensor> planes_of(const at::Tensor& self, int64_t spatial) {
  if (!poolable(self.scalar_type()) || (self.dim() != spatial + 1 && self.dim() != spatial + 2)) return std::nullopt;
  for (int64_t d = self.dim() - spatial - 1; d < self.dim(); ++d) {
    if (self.size(d) == 0) return std::nullopt;  // ATen's error
  }
  std::vector<int64_t> shape{-1};
  for (int64_t d = self.dim() - spatial; d < self.dim(); ++d) shape.push_back(self.size(d));
  return self.contiguous().view(shape);
}

// values and indices [P, O...] back to the input's batch dims.
Tensors2 shaped(Tensors2 r, const at::Tensor& self, int64_t spatial) {
  auto sizes = self.sizes().vec();
  const at::Tensor& v = std::get<0>(r);
  for (const int64_t d : c10::irange(spatial)) sizes[self.dim() - spatial + d] = v.size(1 + d);
  return Tensors2(std::get<0>(r).view(sizes), std::get<1>(r).view(sizes));
}

// Empty outputs of `self`'s batch dims and the given spatial sizes (an empty batch: nothing to pool).
Tensors2 empty_pooled(const at::Tensor& self, at::IntArrayRef output_size) {
  auto sizes = self.sizes().vec();
  const int64_t spatial = static_cast<int64_t>(output_size.size());
  for (const int64_t d : c10::irange(spatial)) sizes[self.dim() - spatial + d] = output_size[d];
  return Tensors2(at::empty(sizes, self.options()), at::empty(sizes, self.options().dtype(at::kLong)));
}

// ---- backward ---------------------------------------------------------------------------------------------
// Along one spatial dim, the outputs whose window may hold input position i: o in [lo[i], lo[i] + R), clipped to
// the outputs. Exact for adaptive windows; for fractional ones (whose per-plane intervals the backward is not
// given) a range that surely holds them: interval(o) lies in (o alpha - 1, o alpha + 1), so a window holding i
// has (i - k) / alpha < o < (i + 1) / alpha.
struct Candidates {
  std::vector<int64_t> lo;  // per input position
  int64_t R = 1, output = 0;
};

Candidates candidates_from(std::vector<int64_t> lo, const std::vector<int64_t>& hi, int64_t output) {
  Candidates c;
  c.output = output;
  for (const size_t i : c10::irange(lo.size())) c.R = std::max(c.R, hi[i] - lo[i] + 1);
  c.lo = std::move(lo);
  return c;
}

Candidates adaptive_candidates(int64_t input, int64_t output) {
  std::vector<int64_t> lo(input, output), hi(input, -1);
  for (const int64_t o : c10::irange(output)) {
    const int64_t start = (o * input) / output, end = ((o + 1) * input + output - 1) / output;
    for (int64_t i = start; i < end; ++i) {
      lo[i] = std::min(lo[i], o);
      hi[i] = std::max(hi[i], o);
    }
  }
  return candidates_from(std::move(lo), hi, output);
}

Candidates fractional_candidates(int64_t input, int64_t output, int64_t pool) {
  std::vector<int64_t> lo(input, 0), hi(input, 0);
  if (output > 1) {
    const double alpha = static_cast<double>(input - pool) / static_cast<double>(output - 1);
    for (const int64_t i : c10::irange(input)) {
      // One more on each side for alpha's rounding in the input's dtype (16-bit types).
      lo[i] = std::clamp<int64_t>(static_cast<int64_t>(std::floor((i - pool) / alpha)) - 1, 0, output - 1);
      hi[i] = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((i + 1) / alpha)) + 1, 0, output - 1);
    }
  }
  return candidates_from(std::move(lo), hi, output);
}

// The gradient without atomics: for each input position, the sum of the gradients of the candidate outputs whose
// index names it, candidates in output order (the CPU kernel's order of addition, so the sums are its sums).
// R_1 * ... * R_n gathers over the input. Index comparisons in float32 below 2^24 positions per plane.
std::optional<at::Tensor> gather_back(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& indices,
                                      const std::vector<Candidates>& dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  if (!poolable(self.scalar_type()) || grad_output.scalar_type() != self.scalar_type() ||
      indices.scalar_type() != at::kLong || grad_output.sizes() != indices.sizes() ||
      grad_output.dim() != self.dim() || (self.dim() != n + 1 && self.dim() != n + 2)) {
    return std::nullopt;
  }
  std::vector<int64_t> inputs{1}, outputs_shape;
  int64_t plane = 1, outputs = 1;
  for (const int64_t d : c10::irange(n)) {
    const int64_t input = self.size(self.dim() - n + d);
    if (grad_output.size(grad_output.dim() - n + d) != dims[d].output) return std::nullopt;
    inputs.push_back(input);
    plane *= input;
    outputs *= dims[d].output;
  }
  const int64_t P = plane == 0 ? 0 : self.numel() / plane;
  at::Tensor grad_input = at::zeros({P, plane}, self.options());
  if (grad_input.numel() == 0 || outputs == 0) return grad_input.view(self.sizes());
  const at::ScalarType positions = plane < (int64_t{1} << 24) ? at::kFloat : at::kLong;
  const at::Tensor g = grad_output.reshape({P, outputs});
  const at::Tensor ix = indices.reshape({P, outputs}).to(positions);
  const at::Tensor here = at::arange(plane, self.options().dtype(positions)).view({1, plane});
  const at::Tensor zero = at::scalar_tensor(0, g.options());
  std::vector<int64_t> r(n, 0);
  while (true) {
    // The candidate output of each input position for this r (flat, clamped) and whether it exists.
    at::Tensor flat, exists;
    int64_t stride = 1;
    for (int64_t d = n - 1; d >= 0; --d) {
      const Candidates& c = dims[d];
      std::vector<int64_t> o(c.lo.size());
      std::vector<float> ok(c.lo.size());
      for (const size_t i : c10::irange(c.lo.size())) {
        o[i] = std::min(c.lo[i] + r[d], c.output - 1) * stride;
        ok[i] = c.lo[i] + r[d] < c.output ? 1.f : 0.f;
      }
      std::vector<int64_t> shape(n, 1);
      shape[d] = static_cast<int64_t>(o.size());
      const at::Tensor od = at::tensor(o, at::kLong).to(self.device()).view(shape);
      const at::Tensor okd = at::tensor(ok, at::kFloat).to(self.device()).view(shape);
      flat = flat.defined() ? flat.add(od) : od;
      exists = exists.defined() ? exists.mul(okd) : okd;
      stride *= c.output;
    }
    const at::Tensor read = flat.expand(std::vector<int64_t>(inputs.begin() + 1, inputs.end())).reshape({1, plane});
    const at::Tensor picked = ix.gather(1, read.expand({P, plane})).eq(here);
    const at::Tensor counts = exists.expand(std::vector<int64_t>(inputs.begin() + 1, inputs.end())).reshape({1, plane}).gt(0);
    grad_input.add_(at::where(counts, at::where(picked, g.gather(1, read.expand({P, plane})), zero), zero));
    // The next r, the last dim fastest (output order).
    int64_t d = n - 1;
    while (d >= 0 && ++r[d] == dims[d].R) r[d--] = 0;
    if (d < 0) break;
  }
  return grad_input.view(self.sizes());
}

// ---- adaptive_max_pool3d ------------------------------------------------------------------------------------
std::optional<Tensors2> adaptive_max_pool3d(const at::Tensor& self, at::IntArrayRef output_size) {
  if (output_size.size() != 3) return std::nullopt;
  const auto x = planes_of(self, 3);
  if (!x) return std::nullopt;
  std::vector<Windows> dims;
  for (const int64_t d : c10::irange(3)) {
    if (output_size[d] <= 0) return std::nullopt;  // ATen's route (and its empty outputs)
    dims.push_back(adaptive_windows(x->size(1 + d), output_size[d], self.options()));
  }
  if (x->size(0) == 0) return empty_pooled(self, output_size);
  return shaped(window_max(*x, dims), self, 3);
}

std::optional<at::Tensor> adaptive_max_pool3d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                       const at::Tensor& indices) {
  if (self.dim() != 4 && self.dim() != 5) return std::nullopt;
  std::vector<Candidates> dims;
  for (const int64_t d : c10::irange(3)) {
    dims.push_back(adaptive_candidates(self.size(self.dim() - 3 + d), grad_output.size(grad_output.dim() - 3 + d)));
  }
  return gather_back(grad_output, self, indices, dims);
}

// ---- fractional_max_pool2d / 3d -----------------------------------------------------------------------------
template <int64_t Spatial>
std::optional<Tensors2> fractional_max_pool(const at::Tensor& self, at::IntArrayRef kernel_size,
                                            at::IntArrayRef output_size, const at::Tensor& random_samples) {
  if (kernel_size.size() != Spatial || output_size.size() != Spatial || random_samples.dim() != 3 ||
      random_samples.size(2) != Spatial || random_samples.scalar_type() != self.scalar_type()) {
    return std::nullopt;
  }
  const auto x = planes_of(self, Spatial);
  if (!x) return std::nullopt;
  const int64_t P = x->size(0);
  for (const int64_t d : c10::irange(Spatial)) {
    const int64_t input = x->size(1 + d);
    // ATen's checks (its messages).
    if (output_size[d] <= 0 || kernel_size[d] <= 0 || output_size[d] + kernel_size[d] - 1 > input) {
      return std::nullopt;
    }
  }
  if (P == 0) return empty_pooled(self, output_size);
  if (random_samples.numel() != P * Spatial) return std::nullopt;
  // The CPU kernel's samples per plane: [W, H] for 2-D, [T, H, W] for 3-D.
  const at::Tensor samples = random_samples.reshape({P, Spatial});
  std::vector<Windows> dims;
  for (const int64_t d : c10::irange(Spatial)) {
    const int64_t column = Spatial == 2 ? 1 - d : d;
    dims.push_back(fractional_windows(samples.select(1, column), x->size(1 + d), output_size[d], kernel_size[d]));
  }
  return shaped(window_max(*x, dims), self, Spatial);
}

template <int64_t Spatial>
std::optional<at::Tensor> fractional_max_pool_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                       at::IntArrayRef kernel_size, at::IntArrayRef output_size,
                                                       const at::Tensor& indices) {
  if (kernel_size.size() != Spatial || output_size.size() != Spatial || self.dim() < Spatial) return std::nullopt;
  std::vector<Candidates> dims;
  for (const int64_t d : c10::irange(Spatial)) {
    const int64_t input = self.size(self.dim() - Spatial + d);
    if (output_size[d] <= 0 || kernel_size[d] <= 0 || output_size[d] + kernel_size[d] - 1 > input) return std::nullopt;
    dims.push_back(fractional_candidates(input, output_size[d], kernel_size[d]));
  }
  return gather_back(grad_output, self, indices, dims);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, adaptive_max_pool3d, "adaptive_max_pool3d", launches(), adaptive_max_pool3d);
  HAL_NATIVE(m, adaptive_max_pool3d_backward, "adaptive_max_pool3d_backward", launches(),
             adaptive_max_pool3d_backward);
  HAL_NATIVE(m, fractional_max_pool2d, "fractional_max_pool2d", launches(), fractional_max_pool<2>);
  HAL_NATIVE(m, fractional_max_pool2d_backward, "fractional_max_pool2d_backward", launches(),
             fractional_max_pool_backward<2>);
  HAL_NATIVE(m, fractional_max_pool3d, "fractional_max_pool3d", launches(), fractional_max_pool<3>);
  HAL_NATIVE(m, fractional_max_pool3d_backward, "fractional_max_pool3d_backward", launches(),
             fractional_max_pool_backward<3>);
}

}  // namespace
}  // namespace torch_hal::native
