// upsample_nearest1d/3d and _upsample_nearest_exact1d/3d, forward and backward, as the 2-D nearest kernel over
// reshaped views: 1-D input is [N, C, 1, W]; 3-D input takes one 2-D pass over (H, W) of [N, C*D, H, W] and one
// over (D, 1) of [N, C, D, OH*OW], where the second axis keeps its size (ATen's nearest index is then the
// identity). Each pass computes ATen's index for its own axis from that axis's scale, so the pixels picked are
// ATen's. (upsample_ops.cpp registers the 2-D ops over the adapter's UPSAMPLE kernels.)
#include <ATen/ops/_upsample_nearest_exact2d.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward.h>
#include <ATen/ops/upsample_nearest2d.h>
#include <ATen/ops/upsample_nearest2d_backward.h>
#include <torch/library.h>

#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

using Scale = std::optional<double>;

at::Tensor nearest2d(const at::Tensor& x, int64_t oh, int64_t ow, Scale sh, Scale sw, bool exact) {
  const std::vector<c10::SymInt> size = {c10::SymInt(oh), c10::SymInt(ow)};
  return exact ? at::_upsample_nearest_exact2d_symint(x, size, sh, sw) : at::upsample_nearest2d_symint(x, size, sh, sw);
}
at::Tensor nearest2d_backward(const at::Tensor& g, int64_t oh, int64_t ow, at::IntArrayRef input, Scale sh, Scale sw,
                              bool exact) {
  const std::vector<c10::SymInt> out = {c10::SymInt(oh), c10::SymInt(ow)};
  const std::vector<c10::SymInt> in(input.begin(), input.end());
  return exact ? at::_upsample_nearest_exact2d_backward_symint(g, out, in, sh, sw)
               : at::upsample_nearest2d_backward_symint(g, out, in, sh, sw);
}

std::optional<std::vector<int64_t>> concrete(c10::SymIntArrayRef sizes) {
  std::vector<int64_t> out;
  for (const c10::SymInt& s : sizes) {
    const auto v = s.maybe_as_int();
    if (!v || *v <= 0) return std::nullopt;  // ATen's errors for empty or symbolic sizes
    out.push_back(*v);
  }
  return out;
}

template <bool Exact>
std::optional<at::Tensor> nearest1d(const at::Tensor& self, c10::SymIntArrayRef output_size, Scale scale) {
  const auto out = concrete(output_size);
  if (!out || out->size() != 1 || self.dim() != 3 || self.size(2) == 0) return std::nullopt;
  return nearest2d(self.unsqueeze(2), 1, (*out)[0], std::nullopt, scale, Exact).squeeze(2);
}
template <bool Exact>
std::optional<at::Tensor> nearest1d_backward(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                             c10::SymIntArrayRef input_size, Scale scale) {
  const auto out = concrete(output_size);
  const auto in = concrete(input_size);
  if (!out || !in || out->size() != 1 || in->size() != 3 || grad.dim() != 3) return std::nullopt;
  const int64_t planes[] = {(*in)[0], (*in)[1], 1, (*in)[2]};
  return nearest2d_backward(grad.unsqueeze(2), 1, (*out)[0], planes, std::nullopt, scale, Exact).squeeze(2);
}

template <bool Exact>
std::optional<at::Tensor> nearest3d(const at::Tensor& self, c10::SymIntArrayRef output_size, Scale sd, Scale sh,
                                    Scale sw) {
  const auto out = concrete(output_size);
  if (!out || out->size() != 3 || self.dim() != 5 || self.numel() == 0) return std::nullopt;
  const int64_t n = self.size(0), c = self.size(1), d = self.size(2), h = self.size(3), w = self.size(4);
  const int64_t od = (*out)[0], oh = (*out)[1], ow = (*out)[2];
  const at::Tensor planes = nearest2d(self.reshape({n, c * d, h, w}), oh, ow, sh, sw, Exact);
  const at::Tensor depth = nearest2d(planes.reshape({n, c, d, oh * ow}), od, oh * ow, sd, std::nullopt, Exact);
  return depth.reshape({n, c, od, oh, ow}).contiguous(self.suggest_memory_format());
}
template <bool Exact>
std::optional<at::Tensor> nearest3d_backward(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                             c10::SymIntArrayRef input_size, Scale sd, Scale sh, Scale sw) {
  const auto out = concrete(output_size);
  const auto in = concrete(input_size);
  if (!out || !in || out->size() != 3 || in->size() != 5 || grad.dim() != 5) return std::nullopt;
  const int64_t n = (*in)[0], c = (*in)[1], d = (*in)[2], h = (*in)[3], w = (*in)[4];
  const int64_t od = (*out)[0], oh = (*out)[1], ow = (*out)[2];
  const int64_t depth_input[] = {n, c, d, oh * ow};
  const at::Tensor depth = nearest2d_backward(grad.reshape({n, c, od, oh * ow}), od, oh * ow, depth_input, sd,
                                              std::nullopt, Exact);
  const int64_t plane_input[] = {n, c * d, h, w};
  const at::Tensor planes = nearest2d_backward(depth.reshape({n, c * d, oh, ow}), oh, ow, plane_input, sh, sw, Exact);
  return planes.reshape({n, c, d, h, w});
}

template <bool Exact>
bool nearest1d_out(const at::Tensor& self, c10::SymIntArrayRef output_size, Scale scale, at::Tensor& out) {
  return write_out(nearest1d<Exact>(self, output_size, scale), out);
}
template <bool Exact>
bool nearest1d_backward_out(const at::Tensor& grad, c10::SymIntArrayRef output_size, c10::SymIntArrayRef input_size,
                            Scale scale, at::Tensor& grad_input) {
  return write_out(nearest1d_backward<Exact>(grad, output_size, input_size, scale), grad_input);
}
template <bool Exact>
bool nearest3d_out(const at::Tensor& self, c10::SymIntArrayRef output_size, Scale sd, Scale sh, Scale sw,
                   at::Tensor& out) {
  return write_out(nearest3d<Exact>(self, output_size, sd, sh, sw), out);
}
template <bool Exact>
bool nearest3d_backward_out(const at::Tensor& grad, c10::SymIntArrayRef output_size, c10::SymIntArrayRef input_size,
                            Scale sd, Scale sh, Scale sw, at::Tensor& grad_input) {
  return write_out(nearest3d_backward<Exact>(grad, output_size, input_size, sd, sh, sw), grad_input);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, upsample_nearest1d, "upsample_nearest1d", launches(), nearest1d<false>);
  HAL_NATIVE(m, upsample_nearest1d_out, "upsample_nearest1d.out", launches(), nearest1d_out<false>);
  HAL_NATIVE(m, _upsample_nearest_exact1d, "_upsample_nearest_exact1d", launches(), nearest1d<true>);
  HAL_NATIVE(m, _upsample_nearest_exact1d_out, "_upsample_nearest_exact1d.out", launches(), nearest1d_out<true>);
  HAL_NATIVE(m, upsample_nearest1d_backward, "upsample_nearest1d_backward", launches(), nearest1d_backward<false>);
  HAL_NATIVE(m, upsample_nearest1d_backward_grad_input, "upsample_nearest1d_backward.grad_input", launches(),
             nearest1d_backward_out<false>);
  HAL_NATIVE(m, _upsample_nearest_exact1d_backward, "_upsample_nearest_exact1d_backward", launches(),
             nearest1d_backward<true>);
  HAL_NATIVE(m, _upsample_nearest_exact1d_backward_grad_input, "_upsample_nearest_exact1d_backward.grad_input",
             launches(), nearest1d_backward_out<true>);
  HAL_NATIVE(m, upsample_nearest3d, "upsample_nearest3d", launches(), nearest3d<false>);
  HAL_NATIVE(m, upsample_nearest3d_out, "upsample_nearest3d.out", launches(), nearest3d_out<false>);
  HAL_NATIVE(m, _upsample_nearest_exact3d, "_upsample_nearest_exact3d", launches(), nearest3d<true>);
  HAL_NATIVE(m, _upsample_nearest_exact3d_out, "_upsample_nearest_exact3d.out", launches(), nearest3d_out<true>);
  HAL_NATIVE(m, upsample_nearest3d_backward, "upsample_nearest3d_backward", launches(), nearest3d_backward<false>);
  HAL_NATIVE(m, upsample_nearest3d_backward_grad_input, "upsample_nearest3d_backward.grad_input", launches(),
             nearest3d_backward_out<false>);
  HAL_NATIVE(m, _upsample_nearest_exact3d_backward, "_upsample_nearest_exact3d_backward", launches(),
             nearest3d_backward<true>);
  HAL_NATIVE(m, _upsample_nearest_exact3d_backward_grad_input, "_upsample_nearest_exact3d_backward.grad_input",
             launches(), nearest3d_backward_out<true>);
}

}  // namespace
}  // namespace torch_hal::native
