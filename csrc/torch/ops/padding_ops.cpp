// reflection_pad{1,2,3}d and replication_pad{1,2,3}d (F.pad's "reflect" and "replicate" modes: CycleGAN's and
// HiFi-GAN's convolutions, image augmentations) and their backward ops: along each padded dimension, output position
// i reads input position source(i) = i - before, reflected about the edges (reflect) or clamped to them (replicate),
// one index_select per dimension. Negative padding crops, in both modes (ATen allows it for reflect too, as long as
// each padding stays below the dimension's size).
// The backward needs no atomics: along one dimension the output positions fall into at most three runs
// (reflected about the start, inside, reflected about the end), each of which maps one to one onto a run of input
// positions, so the gradient is three slice additions (two of them reversed); replicate's likewise, its outer runs
// summed onto the edge positions. Padding that ATen would refuse and inputs of the wrong rank keep ATen's route
// and its errors.
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <algorithm>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

enum class Mode { Reflect, Replicate };

// The input position each of the size + before + after output positions reads along one dimension.
at::Tensor source_positions(int64_t size, int64_t before, int64_t after, Mode mode, const at::Device& device) {
  at::Tensor positions = at::empty({size + before + after}, at::TensorOptions().dtype(at::kLong));
  int64_t* source = positions.data_ptr<int64_t>();
  for (int64_t i = 0; i < positions.numel(); ++i) {
    int64_t p = i - before;
    if (mode == Mode::Replicate) {
      p = p < 0 ? 0 : (p >= size ? size - 1 : p);
    } else {
      p = p < 0 ? -p : p;
      p = p >= size ? 2 * (size - 1) - p : p;
    }
    source[i] = p;
  }
  return positions.to(device);
}

// The padded dimensions (the last `count`) and their (before, after) pairs, last dimension first as F.pad
// orders them; nullopt where ATen's own checks must speak (rank, negative or too large padding, empty sizes).
struct Plan {
  std::vector<int64_t> dims, before, after;
};
std::optional<Plan> plan(const at::Tensor& self, c10::SymIntArrayRef padding, int64_t count, Mode mode) {
  if (self.dim() != count + 1 && self.dim() != count + 2) return std::nullopt;
  if (padding.size() != static_cast<size_t>(2 * count)) return std::nullopt;
  Plan p;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t dim = self.dim() - 1 - k;
    const auto before = padding[2 * k].maybe_as_int(), after = padding[2 * k + 1].maybe_as_int();
    if (!before || !after || self.size(dim) == 0 || self.size(dim) + *before + *after <= 0) return std::nullopt;
    // Negative padding crops (position i - before, clamped or reflected, serves both). Reflect's limit (each
    // padding below the size, which keeps every reflected position inside the input) is ATen's to report.
    if (mode == Mode::Reflect && (*before >= self.size(dim) || *after >= self.size(dim))) return std::nullopt;
    p.dims.push_back(dim);
    p.before.push_back(*before);
    p.after.push_back(*after);
  }
  return p;
}

template <Mode M, int64_t Count>
std::optional<at::Tensor> pad(const at::Tensor& self, c10::SymIntArrayRef padding) {
  const std::optional<Plan> p = plan(self, padding, Count, M);
  if (!p) return std::nullopt;
  at::Tensor out = self;
  for (size_t k = 0; k < p->dims.size(); ++k) {
    const int64_t dim = p->dims[k];
    out = out.index_select(dim, source_positions(self.size(dim), p->before[k], p->after[k], M, self.device()));
  }
  return out.contiguous(self.suggest_memory_format());
}

template <Mode M, int64_t Count>
bool pad_out(const at::Tensor& self, c10::SymIntArrayRef padding, at::Tensor& out) {
  return write_out(pad<M, Count>(self, padding), out);
}

// The gradient along one padded dimension of g (the output's size there) for an input of `size`. The output runs
// [0, before), [before, before + size) and the rest, each clipped to the output (negative padding crops): the
// middle one reads input positions 0..size-1; the first reads before..1 reflected, or position 0 replicated; the
// last size-2 down reflected, or position size-1 replicated. Each run is added onto zeros as a slice (reversed
// where reflected) or as its sum (replicated): no atomics.
template <Mode M>
at::Tensor backward_along(const at::Tensor& g, int64_t dim, int64_t size, int64_t before) {
  const int64_t out = g.size(dim);
  auto sizes = g.sizes().vec();
  sizes[dim] = size;
  at::Tensor grad_input = at::zeros(sizes, g.options());
  // Output run [lo, hi) onto input positions starting at `first` and going up (+1) or down (-1), or all onto
  // `first` (0).
  const auto add_run = [&](int64_t lo, int64_t hi, int64_t first, int64_t direction) {
    lo = std::max<int64_t>(lo, 0);
    hi = std::min<int64_t>(hi, out);
    if (lo >= hi) return;
    const int64_t n = hi - lo;
    const int64_t start = first + direction * lo;  // the input position of output lo
    const at::Tensor run = g.narrow(dim, lo, n);
    if (direction > 0) {
      grad_input.narrow(dim, start, n).add_(run);
    } else if (direction < 0) {
      grad_input.narrow(dim, start - n + 1, n).add_(run.flip(dim));
    } else {
      grad_input.narrow(dim, first, 1).add_(run.sum(dim, /*keepdim=*/true));
    }
  };
  add_run(before, before + size, -before, 1);  // position i - before
  if (M == Mode::Reflect) {
    add_run(0, before, before, -1);                            // position before - i
    add_run(before + size, out, 2 * (size - 1) + before, -1);  // position 2 (size - 1) - (i - before)
  } else {
    add_run(0, before, 0, 0);
    add_run(before + size, out, size - 1, 0);
  }
  return grad_input;
}

// The gradient of self: each dimension's output gradients added back, the last padded dimension first. (Complex
// gradients too: slice additions and sums of complex tensors are native.)
template <Mode M, int64_t Count>
std::optional<at::Tensor> pad_backward(const at::Tensor& grad, const at::Tensor& self, c10::SymIntArrayRef padding) {
  const std::optional<Plan> p = plan(self, padding, Count, M);
  if (!p || !(at::isFloatingType(grad.scalar_type()) || at::isComplexType(grad.scalar_type()))) return std::nullopt;
  at::Tensor g = grad;
  for (size_t k = 0; k < p->dims.size(); ++k) {
    g = backward_along<M>(g, p->dims[k], self.size(p->dims[k]), p->before[k]);
  }
  return g;
}

template <Mode M, int64_t Count>
bool pad_backward_out(const at::Tensor& grad, const at::Tensor& self, c10::SymIntArrayRef padding,
                      at::Tensor& grad_input) {
  return write_out(pad_backward<M, Count>(grad, self, padding), grad_input);
}

constexpr Mode R = Mode::Reflect, P = Mode::Replicate;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, reflection_pad1d, "reflection_pad1d", launches(), pad<R, 1>);
  HAL_NATIVE(m, reflection_pad1d_out, "reflection_pad1d.out", launches(), pad_out<R, 1>);
  HAL_NATIVE(m, reflection_pad2d, "reflection_pad2d", launches(), pad<R, 2>);
  HAL_NATIVE(m, reflection_pad2d_out, "reflection_pad2d.out", launches(), pad_out<R, 2>);
  HAL_NATIVE(m, reflection_pad3d, "reflection_pad3d", launches(), pad<R, 3>);
  HAL_NATIVE(m, reflection_pad3d_out, "reflection_pad3d.out", launches(), pad_out<R, 3>);
  HAL_NATIVE(m, replication_pad1d, "replication_pad1d", launches(), pad<P, 1>);
  HAL_NATIVE(m, replication_pad1d_out, "replication_pad1d.out", launches(), pad_out<P, 1>);
  HAL_NATIVE(m, replication_pad2d, "replication_pad2d", launches(), pad<P, 2>);
  HAL_NATIVE(m, replication_pad2d_out, "replication_pad2d.out", launches(), pad_out<P, 2>);
  HAL_NATIVE(m, replication_pad3d, "replication_pad3d", launches(), pad<P, 3>);
  HAL_NATIVE(m, replication_pad3d_out, "replication_pad3d.out", launches(), pad_out<P, 3>);
  HAL_NATIVE(m, reflection_pad1d_backward, "reflection_pad1d_backward", launches(), pad_backward<R, 1>);
  HAL_NATIVE(m, reflection_pad1d_backward_grad_input, "reflection_pad1d_backward.grad_input", launches(),
             pad_backward_out<R, 1>);
  HAL_NATIVE(m, reflection_pad2d_backward, "reflection_pad2d_backward", launches(), pad_backward<R, 2>);
  HAL_NATIVE(m, reflection_pad2d_backward_grad_input, "reflection_pad2d_backward.grad_input", launches(),
             pad_backward_out<R, 2>);
  HAL_NATIVE(m, reflection_pad3d_backward, "reflection_pad3d_backward", launches(), pad_backward<R, 3>);
  HAL_NATIVE(m, reflection_pad3d_backward_grad_input, "reflection_pad3d_backward.grad_input", launches(),
             pad_backward_out<R, 3>);
  HAL_NATIVE(m, replication_pad1d_backward, "replication_pad1d_backward", launches(), pad_backward<P, 1>);
  HAL_NATIVE(m, replication_pad1d_backward_grad_input, "replication_pad1d_backward.grad_input", launches(),
             pad_backward_out<P, 1>);
  HAL_NATIVE(m, replication_pad2d_backward, "replication_pad2d_backward", launches(), pad_backward<P, 2>);
  HAL_NATIVE(m, replication_pad2d_backward_grad_input, "replication_pad2d_backward.grad_input", launches(),
             pad_backward_out<P, 2>);
  HAL_NATIVE(m, replication_pad3d_backward, "replication_pad3d_backward", launches(), pad_backward<P, 3>);
  HAL_NATIVE(m, replication_pad3d_backward_grad_input, "replication_pad3d_backward.grad_input", launches(),
             pad_backward_out<P, 3>);
}

}  // namespace
}  // namespace torch_hal::native
