// reflection_pad{1,2,3}d and replication_pad{1,2,3}d (F.pad's "reflect" and "replicate" modes: CycleGAN's and
// HiFi-GAN's convolutions, image augmentations) and their backward ops, from native index_select and index_add:
// along each padded dimension, output position i reads input position source(i), where source reflects about
// the edges (reflect) or clamps to them (replicate). The backward adds each output gradient into the input
// position it was read from, one dimension at a time. Negative padding crops (replicate; ATen refuses it for
// reflect). Padding that ATen would refuse and inputs of the wrong rank keep ATen's route and its errors.
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

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
    // Replicate crops where padding is negative (position i - before, clamped, serves both); reflect's limits
    // are ATen's to report.
    if (mode == Mode::Reflect && (*before < 0 || *after < 0 || *before >= self.size(dim) || *after >= self.size(dim))) {
      return std::nullopt;
    }
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

// The gradient of self: each dimension's output gradients added back, the last padded dimension first.
template <Mode M, int64_t Count>
std::optional<at::Tensor> pad_backward(const at::Tensor& grad, const at::Tensor& self, c10::SymIntArrayRef padding) {
  const std::optional<Plan> p = plan(self, padding, Count, M);
  if (!p || !at::isFloatingType(grad.scalar_type())) return std::nullopt;
  at::Tensor g = grad;
  for (size_t k = 0; k < p->dims.size(); ++k) {
    const int64_t dim = p->dims[k];
    auto sizes = g.sizes().vec();
    sizes[dim] = self.size(dim);
    g = at::zeros(sizes, g.options())
            .index_add_(dim, source_positions(self.size(dim), p->before[k], p->after[k], M, self.device()), g);
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
