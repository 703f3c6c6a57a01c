// upsample_nearest2d, _upsample_nearest_exact2d and upsample_bilinear2d, forward and backward, over the
// adapter's UPSAMPLE kernels. F.interpolate reaches them through the .vec overloads, which are composite
// (they compute the output size and call these), so these are the ops that reach a backend.
//
// As ATen's kernels: 4-D [N, C, H, W] input; the output keeps the input's memory format (channels-last stays
// channels-last, anything else is made contiguous); the scales the kernels take are computed here exactly as
// ATen computes them (compute_scales_value, area_pixel_compute_scale: float32 arithmetic, float64 for
// float64 bilinear), so that nearest picks the pixels ATen picks.
#include <ATen/ops/empty.h>
#include <c10/core/SymIntArrayRef.h>
#include <torch/library.h>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

bool is_kernel_type(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16 || t == at::kDouble;
}

// ATen's compute_scales_value<T>: input pixels per output pixel.
template <class T>
T scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0. ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

// ATen's area_pixel_compute_scale<T>.
template <class T>
T area_pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : static_cast<T>(0);
  return scales_value<T>(scale, in, out);
}

struct Sizes {
  int64_t N, C, H, W, OH, OW;
};

std::optional<Sizes> sizes_of(at::IntArrayRef input_size, at::IntArrayRef output_size) {
  if (input_size.size() != 4 || output_size.size() != 2) return std::nullopt;
  Sizes s{input_size[0], input_size[1], input_size[2], input_size[3], output_size[0], output_size[1]};
  // ATen: "Input and output sizes should be greater than 0"; batch and channels may be empty.
  if (s.N < 0 || s.C < 0 || s.H <= 0 || s.W <= 0 || s.OH <= 0 || s.OW <= 0) return std::nullopt;
  return s;
}

KernelArgs& add_planes(KernelArgs& args, const at::Tensor& t, const Sizes& s, bool big, bool channels_last,
                       bool output) {
  const int64_t P = big ? s.H : s.OH, Q = big ? s.W : s.OW;
  const int64_t sizes[] = {s.N, s.C, P, Q};
  const int64_t first[] = {s.C * P * Q, P * Q, Q, 1}, last[] = {P * Q * s.C, 1, Q * s.C, s.C};
  const at::IntArrayRef strides = channels_last ? at::IntArrayRef(last) : at::IntArrayRef(first);
  return output ? args.output_as(t, sizes, strides) : args.input_as(t, sizes, strides);
}

// One launch of `op`: forward reads `src` ([N, C, H, W]) into a new [N, C, OH, OW]; backward reads `src`
// ([N, C, OH, OW] gradients) into a new [N, C, H, W]. `flag`: exact (nearest) or align_corners (bilinear).
std::optional<at::Tensor> run(hal_op_t op, bool backward, const at::Tensor& src, const Sizes& s, double scale_h,
                              double scale_w, bool flag) {
  if (!is_kernel_type(src.scalar_type())) return std::nullopt;
  const at::MemoryFormat format = src.suggest_memory_format();
  const bool channels_last = format == at::MemoryFormat::ChannelsLast;
  const at::Tensor in = src.contiguous(format);
  at::Tensor out = backward ? at::empty({s.N, s.C, s.H, s.W}, in.options().memory_format(format))
                            : at::empty({s.N, s.C, s.OH, s.OW}, in.options().memory_format(format));
  if (out.numel() == 0) return out;
  KernelArgs args;
  add_planes(args, in, s, /*big=*/!backward, channels_last, false);
  add_planes(args, out, s, /*big=*/backward, channels_last, true);
  args.scalar(scale_h).scalar(scale_w).scalar(flag);
  if (!launch(src.device().index(), op, args)) return std::nullopt;
  return out;
}

std::optional<at::Tensor> nearest(const at::Tensor& self, c10::SymIntArrayRef output_size,
                                  std::optional<double> scales_h, std::optional<double> scales_w, bool exact) {
  if (self.dim() != 4) return std::nullopt;
  const auto s = sizes_of(self.sizes(), C10_AS_INTARRAYREF_SLOW(output_size));
  if (!s) return std::nullopt;
  return run(HAL_OP_UPSAMPLE_NEAREST2D, false, self, *s, scales_value<float>(scales_h, s->H, s->OH),
             scales_value<float>(scales_w, s->W, s->OW), exact);
}

std::optional<at::Tensor> nearest_backward(const at::Tensor& grad_output, c10::SymIntArrayRef output_size,
                                           c10::SymIntArrayRef input_size, std::optional<double> scales_h,
                                           std::optional<double> scales_w, bool exact) {
  const auto s = sizes_of(C10_AS_INTARRAYREF_SLOW(input_size), C10_AS_INTARRAYREF_SLOW(output_size));
  if (!s || grad_output.dim() != 4 ||
      grad_output.sizes() != at::IntArrayRef({s->N, s->C, s->OH, s->OW})) {
    return std::nullopt;
  }
  return run(HAL_OP_UPSAMPLE_NEAREST2D_BACKWARD, true, grad_output, *s, scales_value<float>(scales_h, s->H, s->OH),
             scales_value<float>(scales_w, s->W, s->OW), exact);
}

std::optional<at::Tensor> upsample_nearest2d(const at::Tensor& self, c10::SymIntArrayRef output_size,
                                             std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest(self, output_size, scales_h, scales_w, false);
}
std::optional<at::Tensor> upsample_nearest_exact2d(const at::Tensor& self, c10::SymIntArrayRef output_size,
                                                   std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest(self, output_size, scales_h, scales_w, true);
}
std::optional<at::Tensor> upsample_nearest2d_backward(const at::Tensor& grad_output, c10::SymIntArrayRef output_size,
                                                      c10::SymIntArrayRef input_size, std::optional<double> scales_h,
                                                      std::optional<double> scales_w) {
  return nearest_backward(grad_output, output_size, input_size, scales_h, scales_w, false);
}
std::optional<at::Tensor> upsample_nearest_exact2d_backward(const at::Tensor& grad_output,
                                                            c10::SymIntArrayRef output_size,
                                                            c10::SymIntArrayRef input_size,
                                                            std::optional<double> scales_h,
                                                            std::optional<double> scales_w) {
  return nearest_backward(grad_output, output_size, input_size, scales_h, scales_w, true);
}

// Bilinear scales in the kernels' accumulation type: float64 for float64 tensors, else float32.
std::pair<double, double> bilinear_scales(at::ScalarType type, const Sizes& s, bool align_corners,
                                          std::optional<double> scales_h, std::optional<double> scales_w) {
  if (type == at::kDouble) {
    return {area_pixel_scale<double>(s.H, s.OH, align_corners, scales_h),
            area_pixel_scale<double>(s.W, s.OW, align_corners, scales_w)};
  }
  return {area_pixel_scale<float>(s.H, s.OH, align_corners, scales_h),
          area_pixel_scale<float>(s.W, s.OW, align_corners, scales_w)};
}

std::optional<at::Tensor> upsample_bilinear2d(const at::Tensor& self, c10::SymIntArrayRef output_size,
                                              bool align_corners, std::optional<double> scales_h,
                                              std::optional<double> scales_w) {
  if (self.dim() != 4) return std::nullopt;
  const auto s = sizes_of(self.sizes(), C10_AS_INTARRAYREF_SLOW(output_size));
  if (!s) return std::nullopt;
  const auto [sh, sw] = bilinear_scales(self.scalar_type(), *s, align_corners, scales_h, scales_w);
  return run(HAL_OP_UPSAMPLE_BILINEAR2D, false, self, *s, sh, sw, align_corners);
}

std::optional<at::Tensor> upsample_bilinear2d_backward(const at::Tensor& grad_output, c10::SymIntArrayRef output_size,
                                                       c10::SymIntArrayRef input_size, bool align_corners,
                                                       std::optional<double> scales_h,
                                                       std::optional<double> scales_w) {
  const auto s = sizes_of(C10_AS_INTARRAYREF_SLOW(input_size), C10_AS_INTARRAYREF_SLOW(output_size));
  if (!s || grad_output.dim() != 4 ||
      grad_output.sizes() != at::IntArrayRef({s->N, s->C, s->OH, s->OW})) {
    return std::nullopt;
  }
  const auto [sh, sw] = bilinear_scales(grad_output.scalar_type(), *s, align_corners, scales_h, scales_w);
  return run(HAL_OP_UPSAMPLE_BILINEAR2D_BACKWARD, true, grad_output, *s, sh, sw, align_corners);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, upsample_nearest2d, "upsample_nearest2d", launches(HAL_OP_UPSAMPLE_NEAREST2D), upsample_nearest2d);
  HAL_NATIVE(m, upsample_nearest2d_backward, "upsample_nearest2d_backward", launches(HAL_OP_UPSAMPLE_NEAREST2D_BACKWARD), upsample_nearest2d_backward);
  HAL_NATIVE(m, _upsample_nearest_exact2d, "_upsample_nearest_exact2d", launches(HAL_OP_UPSAMPLE_NEAREST2D), upsample_nearest_exact2d);
  HAL_NATIVE(m, _upsample_nearest_exact2d_backward, "_upsample_nearest_exact2d_backward", launches(HAL_OP_UPSAMPLE_NEAREST2D_BACKWARD),
             upsample_nearest_exact2d_backward);
  HAL_NATIVE(m, upsample_bilinear2d, "upsample_bilinear2d", launches(HAL_OP_UPSAMPLE_BILINEAR2D), upsample_bilinear2d);
  HAL_NATIVE(m, upsample_bilinear2d_backward, "upsample_bilinear2d_backward", launches(HAL_OP_UPSAMPLE_BILINEAR2D_BACKWARD), upsample_bilinear2d_backward);
}

}  // namespace
}  // namespace torch_hal::native
