// Resamplings that act on each spatial dimension separately, as small matrix products: linear (1-D), bicubic
// (2-D), antialiased bilinear (2-D) and trilinear (3-D) upsampling and 3-D adaptive average pooling, with their
// backward ops. Along one dimension each is out = A x with A [out_size, in_size] holding the weights (2 linear
// taps, 4 cubic taps with the indices clamped to the edge, 1/len over an adaptive window), so the forward
// applies A along every spatial dimension in turn and the backward applies A^T. Antialiasing only changes the
// weights: a triangle filter widened to the downsampling factor, normalized per output. The weights come from
// ATen's own helpers (UpSample.h: the scales, source indices and cubic coefficients in float, as the CPU kernels
// compute them), built on the host once per call and applied with the device's GEMM, in float32 (or float64).
// float16 and bfloat16 keep ATen's route: its kernels round the weights and each product to the half type on
// the way, which a float32 product does not reproduce (1-4 half ulps apart, past OpInfo's tolerance). ATen's
// CPU kernels are all these ops had, so without this they took the CPU fallback.
#include <ATen/native/UpSample.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/matmul.h>
#include <torch/library.h>

#include <array>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

enum class Resampling { Linear, Cubic, AdaptiveAverage, LinearAntialias };

// Antialiased linear weights (interpolate(antialias=True), PIL's filter): output o averages the inputs within
// `support` of its centre scale * (o + 0.5) with a triangle as wide as the scale when downsampling (1 when
// upsampling), normalized to sum 1 over the inputs inside the image. Each expression keeps the CPU kernel's
// types (HelperInterpBase::_compute_indices_min_size_weights_aa: opmath_t values, double literals, truncating
// int64 casts), so the weights are the CPU's to the bit.
template <class opmath_t, class Add>
void antialiased_linear_weights(int64_t in_size, int64_t out_size, bool align_corners, std::optional<double> scale_arg,
                                const Add& add) {
  const opmath_t scale = at::native::area_pixel_compute_scale<opmath_t>(in_size, out_size, align_corners, scale_arg);
  const opmath_t support = (scale >= 1.0) ? 1.0 * scale : 1.0;  // interp_size 2, times 0.5
  const int64_t max_taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const opmath_t invscale = (scale >= 1.0) ? 1.0 / scale : 1.0;
  const auto triangle = [](opmath_t x) -> opmath_t {
    x = std::abs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
  };
  std::vector<opmath_t> w(static_cast<size_t>(max_taps));
  for (int64_t o = 0; o < out_size; ++o) {
    const opmath_t center = scale * (o + 0.5);
    const int64_t first = std::max(static_cast<int64_t>(center - support + 0.5), int64_t{0});
    const int64_t taps = std::clamp(std::min(static_cast<int64_t>(center + support + 0.5), in_size) - first,
                                    int64_t{0}, max_taps);
    opmath_t total = 0.0;
    for (int64_t j = 0; j < taps; ++j) {
      w[j] = triangle((j + first - center + 0.5) * invscale);
      total += w[j];
    }
    for (int64_t j = 0; j < taps; ++j) add(o, first + j, total != 0.0 ? w[j] / total : w[j]);
  }
}

// A [out_size, in_size] for one dimension, on the host in opmath_t: float for float32, double for float64, as
// the CPU kernels compute their scales, source indices and coefficients.
template <class opmath_t>
at::Tensor weights_in(Resampling kind, int64_t in_size, int64_t out_size, bool align_corners,
                      std::optional<double> scale) {
  std::vector<opmath_t> a(static_cast<size_t>(out_size * in_size), opmath_t(0));
  const auto add = [&](int64_t o, int64_t i, opmath_t w) { a[static_cast<size_t>(o * in_size + i)] += w; };
  if (kind == Resampling::LinearAntialias) {
    antialiased_linear_weights<opmath_t>(in_size, out_size, align_corners, scale, add);
  } else if (kind == Resampling::AdaptiveAverage) {
    for (int64_t o = 0; o < out_size; ++o) {
      const int64_t start = (o * in_size) / out_size, end = ((o + 1) * in_size + out_size - 1) / out_size;
      for (int64_t i = start; i < end; ++i) add(o, i, opmath_t(1) / static_cast<opmath_t>(end - start));
    }
  } else {
    const opmath_t ratio = at::native::area_pixel_compute_scale<opmath_t>(in_size, out_size, align_corners, scale);
    for (int64_t o = 0; o < out_size; ++o) {
      if (kind == Resampling::Linear) {
        int64_t i0 = 0, i1 = 0;
        opmath_t w0 = 0, w1 = 0;
        at::native::compute_source_index_and_lambda<opmath_t, opmath_t>(i0, i1, w0, w1, ratio, o, in_size,
                                                                          out_size, align_corners);
        add(o, i0, w0);
        add(o, i1, w1);
      } else {
        const opmath_t source = at::native::area_pixel_compute_source_index<opmath_t>(ratio, o, align_corners, true);
        const int64_t base = static_cast<int64_t>(std::floor(source));
        opmath_t coefficients[4];
        at::native::get_cubic_upsample_coefficients<opmath_t>(coefficients, source - static_cast<opmath_t>(base));
        for (int k = 0; k < 4; ++k) add(o, std::clamp<int64_t>(base - 1 + k, 0, in_size - 1), coefficients[k]);
      }
    }
  }
  return at::from_blob(a.data(), {out_size, in_size}, c10::CppTypeToScalarType<opmath_t>::value).clone();
}

at::Tensor weights_along(at::ScalarType type, Resampling kind, int64_t in_size, int64_t out_size, bool align_corners,
                         std::optional<double> scale) {
  return type == at::kDouble ? weights_in<double>(kind, in_size, out_size, align_corners, scale)
                             : weights_in<float>(kind, in_size, out_size, align_corners, scale);
}

// x with A applied along each of its last spatial dimensions (the forward: x's sizes there are in_sizes), or A^T
// (the backward: x's sizes there are out_sizes). in_sizes / out_sizes are the forward's.
at::Tensor resample(const at::Tensor& x, Resampling kind, at::IntArrayRef in_sizes, at::IntArrayRef out_sizes,
                    bool align_corners, const std::vector<std::optional<double>>& scales, bool transpose) {
  const int64_t spatial = static_cast<int64_t>(in_sizes.size());
  if (x.numel() == 0) {  // an empty batch or channel dimension: the output's shape, no elements
    std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end() - spatial);
    const at::IntArrayRef produced = transpose ? in_sizes : out_sizes;
    shape.insert(shape.end(), produced.begin(), produced.end());
    return at::empty(shape, x.options());
  }
  at::Tensor y = x;
  for (int64_t s = 0; s < spatial; ++s) {
    const int64_t dim = x.dim() - spatial + s;
    const at::Tensor a =
        weights_along(x.scalar_type(), kind, in_sizes[s], out_sizes[s], align_corners, scales[s]).to(x.device());
    y = at::matmul(y.movedim(dim, -1), transpose ? a : a.t()).movedim(-1, dim);
  }
  return y.contiguous(x.suggest_memory_format());
}

bool resamplable(const at::Tensor& x) {
  return x.scalar_type() == at::kFloat || x.scalar_type() == at::kDouble;
}

std::vector<int64_t> last(const at::Tensor& x, int64_t count) {
  return std::vector<int64_t>(x.sizes().end() - count, x.sizes().end());
}

template <Resampling KIND, int N>
std::optional<at::Tensor> upsample(const at::Tensor& self, c10::SymIntArrayRef output_size_sym, bool align_corners,
                                   const std::vector<std::optional<double>>& scales) {
  const auto output_size = C10_AS_INTARRAYREF_SLOW(output_size_sym);
  if constexpr (N == 1) at::native::upsample_1d_common_check(self.sizes(), output_size);
  else if constexpr (N == 2) at::native::upsample_2d_common_check(self.sizes(), output_size);
  else at::native::upsample_3d_common_check(self.sizes(), output_size);
  if (!resamplable(self)) return std::nullopt;
  return resample(self, KIND, last(self, N), output_size, align_corners, scales, false);
}

template <Resampling KIND, int N>
std::optional<at::Tensor> upsample_backward(const at::Tensor& grad, c10::SymIntArrayRef output_size_sym,
                                            c10::SymIntArrayRef input_size_sym, bool align_corners,
                                            const std::vector<std::optional<double>>& scales) {
  const auto output_size = C10_AS_INTARRAYREF_SLOW(output_size_sym);
  const auto input_size = C10_AS_INTARRAYREF_SLOW(input_size_sym);
  if (!resamplable(grad) || static_cast<int64_t>(input_size.size()) != N + 2 ||
      !grad.sizes().slice(grad.dim() - N).equals(output_size)) {
    return std::nullopt;  // ATen's checks and errors
  }
  return resample(grad, KIND, input_size.slice(2), output_size, align_corners, scales, true);
}

std::optional<at::Tensor> native_linear1d(const at::Tensor& self, c10::SymIntArrayRef output_size, bool align_corners,
                                          std::optional<double> scale) {
  return upsample<Resampling::Linear, 1>(self, output_size, align_corners, {scale});
}
bool native_linear1d_out(const at::Tensor& self, c10::SymIntArrayRef output_size, bool align_corners,
                         std::optional<double> scale, at::Tensor& out) {
  return write_out(native_linear1d(self, output_size, align_corners, scale), out);
}
std::optional<at::Tensor> native_linear1d_backward(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                                   c10::SymIntArrayRef input_size, bool align_corners,
                                                   std::optional<double> scale) {
  return upsample_backward<Resampling::Linear, 1>(grad, output_size, input_size, align_corners, {scale});
}
bool native_linear1d_backward_out(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                  c10::SymIntArrayRef input_size, bool align_corners, std::optional<double> scale,
                                  at::Tensor& grad_input) {
  return write_out(native_linear1d_backward(grad, output_size, input_size, align_corners, scale), grad_input);
}

std::optional<at::Tensor> native_bicubic2d(const at::Tensor& self, c10::SymIntArrayRef output_size, bool align_corners,
                                           std::optional<double> scale_h, std::optional<double> scale_w) {
  return upsample<Resampling::Cubic, 2>(self, output_size, align_corners, {scale_h, scale_w});
}
bool native_bicubic2d_out(const at::Tensor& self, c10::SymIntArrayRef output_size, bool align_corners,
                          std::optional<double> scale_h, std::optional<double> scale_w, at::Tensor& out) {
  return write_out(native_bicubic2d(self, output_size, align_corners, scale_h, scale_w), out);
}
std::optional<at::Tensor> native_bicubic2d_backward(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                                    c10::SymIntArrayRef input_size, bool align_corners,
                                                    std::optional<double> scale_h, std::optional<double> scale_w) {
  return upsample_backward<Resampling::Cubic, 2>(grad, output_size, input_size, align_corners, {scale_h, scale_w});
}
bool native_bicubic2d_backward_out(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                   c10::SymIntArrayRef input_size, bool align_corners, std::optional<double> scale_h,
                                   std::optional<double> scale_w, at::Tensor& grad_input) {
  return write_out(native_bicubic2d_backward(grad, output_size, input_size, align_corners, scale_h, scale_w),
                   grad_input);
}

std::optional<at::Tensor> native_trilinear3d(const at::Tensor& self, c10::SymIntArrayRef output_size,
                                             bool align_corners, std::optional<double> scale_d,
                                             std::optional<double> scale_h, std::optional<double> scale_w) {
  return upsample<Resampling::Linear, 3>(self, output_size, align_corners, {scale_d, scale_h, scale_w});
}
bool native_trilinear3d_out(const at::Tensor& self, c10::SymIntArrayRef output_size, bool align_corners,
                            std::optional<double> scale_d, std::optional<double> scale_h,
                            std::optional<double> scale_w, at::Tensor& out) {
  return write_out(native_trilinear3d(self, output_size, align_corners, scale_d, scale_h, scale_w), out);
}
std::optional<at::Tensor> native_trilinear3d_backward(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                                      c10::SymIntArrayRef input_size, bool align_corners,
                                                      std::optional<double> scale_d, std::optional<double> scale_h,
                                                      std::optional<double> scale_w) {
  return upsample_backward<Resampling::Linear, 3>(grad, output_size, input_size, align_corners,
                                                  {scale_d, scale_h, scale_w});
}
bool native_trilinear3d_backward_out(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                     c10::SymIntArrayRef input_size, bool align_corners,
                                     std::optional<double> scale_d, std::optional<double> scale_h,
                                     std::optional<double> scale_w, at::Tensor& grad_input) {
  return write_out(
      native_trilinear3d_backward(grad, output_size, input_size, align_corners, scale_d, scale_h, scale_w),
      grad_input);
}

std::optional<at::Tensor> native_bilinear2d_aa(const at::Tensor& self, c10::SymIntArrayRef output_size,
                                              bool align_corners, std::optional<double> scale_h,
                                              std::optional<double> scale_w) {
  return upsample<Resampling::LinearAntialias, 2>(self, output_size, align_corners, {scale_h, scale_w});
}
bool native_bilinear2d_aa_out(const at::Tensor& self, c10::SymIntArrayRef output_size, bool align_corners,
                              std::optional<double> scale_h, std::optional<double> scale_w, at::Tensor& out) {
  return write_out(native_bilinear2d_aa(self, output_size, align_corners, scale_h, scale_w), out);
}
std::optional<at::Tensor> native_bilinear2d_aa_backward(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                                       c10::SymIntArrayRef input_size, bool align_corners,
                                                       std::optional<double> scale_h, std::optional<double> scale_w) {
  return upsample_backward<Resampling::LinearAntialias, 2>(grad, output_size, input_size, align_corners,
                                                           {scale_h, scale_w});
}
bool native_bilinear2d_aa_backward_out(const at::Tensor& grad, c10::SymIntArrayRef output_size,
                                       c10::SymIntArrayRef input_size, bool align_corners,
                                       std::optional<double> scale_h, std::optional<double> scale_w,
                                       at::Tensor& grad_input) {
  return write_out(native_bilinear2d_aa_backward(grad, output_size, input_size, align_corners, scale_h, scale_w),
                   grad_input);
}

// 3-D adaptive average pooling: [N,] C, D, H, W with windows [floor(o*I/O), ceil((o+1)*I/O)) on each dimension.
std::optional<at::Tensor> native_adaptive_avg_pool3d(const at::Tensor& self, c10::SymIntArrayRef output_size_sym) {
  const auto output_size = C10_AS_INTARRAYREF_SLOW(output_size_sym);
  if ((self.dim() != 4 && self.dim() != 5) || output_size.size() != 3 || !resamplable(self)) return std::nullopt;
  for (const int64_t d : self.sizes().slice(self.dim() - 3)) {
    if (d == 0) return std::nullopt;  // ATen's error
  }
  const std::vector<std::optional<double>> none(3);
  return resample(self, Resampling::AdaptiveAverage, last(self, 3), output_size, false, none, false);
}
bool native_adaptive_avg_pool3d_out(const at::Tensor& self, c10::SymIntArrayRef output_size, at::Tensor& out) {
  return write_out(native_adaptive_avg_pool3d(self, output_size), out);
}
std::optional<at::Tensor> native_adaptive_avg_pool3d_backward(const at::Tensor& grad, const at::Tensor& self) {
  if (!resamplable(grad) || grad.dim() != self.dim() || (self.dim() != 4 && self.dim() != 5)) return std::nullopt;
  const std::vector<std::optional<double>> none(3);
  return resample(grad, Resampling::AdaptiveAverage, last(self, 3), last(grad, 3), false, none, true);
}
bool native_adaptive_avg_pool3d_backward_out(const at::Tensor& grad, const at::Tensor& self, at::Tensor& grad_input) {
  return write_out(native_adaptive_avg_pool3d_backward(grad, self), grad_input);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, upsample_linear1d, "upsample_linear1d", launches(), native_linear1d);
  HAL_NATIVE(m, upsample_linear1d_out, "upsample_linear1d.out", launches(), native_linear1d_out);
  HAL_NATIVE(m, upsample_linear1d_backward, "upsample_linear1d_backward", launches(), native_linear1d_backward);
  HAL_NATIVE(m, upsample_linear1d_backward_grad_input, "upsample_linear1d_backward.grad_input", launches(),
             native_linear1d_backward_out);
  HAL_NATIVE(m, upsample_bicubic2d, "upsample_bicubic2d", launches(), native_bicubic2d);
  HAL_NATIVE(m, upsample_bicubic2d_out, "upsample_bicubic2d.out", launches(), native_bicubic2d_out);
  HAL_NATIVE(m, upsample_bicubic2d_backward, "upsample_bicubic2d_backward", launches(), native_bicubic2d_backward);
  HAL_NATIVE(m, upsample_bicubic2d_backward_grad_input, "upsample_bicubic2d_backward.grad_input", launches(),
             native_bicubic2d_backward_out);
  HAL_NATIVE(m, _upsample_bilinear2d_aa, "_upsample_bilinear2d_aa", launches(), native_bilinear2d_aa);
  HAL_NATIVE(m, _upsample_bilinear2d_aa_out, "_upsample_bilinear2d_aa.out", launches(), native_bilinear2d_aa_out);
  HAL_NATIVE(m, _upsample_bilinear2d_aa_backward, "_upsample_bilinear2d_aa_backward", launches(),
             native_bilinear2d_aa_backward);
  HAL_NATIVE(m, _upsample_bilinear2d_aa_backward_grad_input, "_upsample_bilinear2d_aa_backward.grad_input", launches(),
             native_bilinear2d_aa_backward_out);
  HAL_NATIVE(m, upsample_trilinear3d, "upsample_trilinear3d", launches(), native_trilinear3d);
  HAL_NATIVE(m, upsample_trilinear3d_out, "upsample_trilinear3d.out", launches(), native_trilinear3d_out);
  HAL_NATIVE(m, upsample_trilinear3d_backward, "upsample_trilinear3d_backward", launches(),
             native_trilinear3d_backward);
  HAL_NATIVE(m, upsample_trilinear3d_backward_grad_input, "upsample_trilinear3d_backward.grad_input", launches(),
             native_trilinear3d_backward_out);
  HAL_NATIVE(m, _adaptive_avg_pool3d, "_adaptive_avg_pool3d", launches(), native_adaptive_avg_pool3d);
  HAL_NATIVE(m, adaptive_avg_pool3d_out, "adaptive_avg_pool3d.out", launches(), native_adaptive_avg_pool3d_out);
  HAL_NATIVE(m, _adaptive_avg_pool3d_backward, "_adaptive_avg_pool3d_backward", launches(),
             native_adaptive_avg_pool3d_backward);
  HAL_NATIVE(m, adaptive_avg_pool3d_backward_grad_input, "adaptive_avg_pool3d_backward.grad_input", launches(),
             native_adaptive_avg_pool3d_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
