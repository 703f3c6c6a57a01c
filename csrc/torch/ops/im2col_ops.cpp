// im2col and col2im (F.unfold and F.fold, and each other's backward) from native views, copies and index_add:
// im2col is the padded input seen through an as_strided view of its sliding windows [N, C, kh, kw, oh, ow] and
// copied into [N, C*kh*kw, oh*ow]; col2im adds each column element into the padded image position it was read
// from (index_add over the flat image, positions computed on the device with arange), then crops the padding.
// ATen gives both CPU kernels of their own, so without these F.unfold / F.fold took the CPU fallback. ATen's shape
// checks run first (the same errors); dtypes index_add lacks keep ATen's route for col2im.
#include <ATen/TensorOperators.h>
#include <ATen/native/im2col_shape_check.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// A window geometry along one spatial dimension.
struct Axis {
  int64_t kernel, dilation, padding, stride;
  int64_t windows(int64_t size) const { return (size + 2 * padding - (dilation * (kernel - 1) + 1)) / stride + 1; }
};

struct Windows {
  Axis h, w;
};

Windows windows_of(at::IntArrayRef kernel_size, at::IntArrayRef dilation, at::IntArrayRef padding,
                   at::IntArrayRef stride) {
  return {{kernel_size[0], dilation[0], padding[0], stride[0]}, {kernel_size[1], dilation[1], padding[1], stride[1]}};
}

bool two_each(at::IntArrayRef a, at::IntArrayRef b, at::IntArrayRef c, at::IntArrayRef d) {
  return a.size() == 2 && b.size() == 2 && c.size() == 2 && d.size() == 2;
}

std::optional<at::Tensor> native_im2col(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef dilation,
                                        at::IntArrayRef padding, at::IntArrayRef stride) {
  if (!two_each(kernel_size, dilation, padding, stride)) return std::nullopt;  // ATen's error
  const Windows g = windows_of(kernel_size, dilation, padding, stride);
  at::native::im2col_shape_check(self, at::Tensor(), g.h.kernel, g.w.kernel, g.h.dilation, g.w.dilation,
                                 g.h.padding, g.w.padding, g.h.stride, g.w.stride);
  const bool batched = self.dim() == 4;
  const at::Tensor x = batched ? self : self.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1);
  const int64_t oh = g.h.windows(x.size(2)), ow = g.w.windows(x.size(3));
  const at::Tensor padded =
      at::constant_pad_nd(x, {g.w.padding, g.w.padding, g.h.padding, g.h.padding}, 0).contiguous();
  const at::Tensor windows = padded.as_strided(
      {n, c, g.h.kernel, g.w.kernel, oh, ow},
      {padded.stride(0), padded.stride(1), g.h.dilation * padded.stride(2), g.w.dilation * padded.stride(3),
       g.h.stride * padded.stride(2), g.w.stride * padded.stride(3)});
  const at::Tensor columns = windows.reshape({n, c * g.h.kernel * g.w.kernel, oh * ow});
  return batched ? columns : columns.squeeze(0);
}

// col2im: `self` [N, C*kh*kw, L] (or unbatched) summed into the image [N, C, H, W] of `output_size`.
std::optional<at::Tensor> native_col2im(const at::Tensor& self, c10::SymIntArrayRef output_size_sym,
                                        at::IntArrayRef kernel_size, at::IntArrayRef dilation, at::IntArrayRef padding,
                                        at::IntArrayRef stride) {
  if (!two_each(kernel_size, dilation, padding, stride) || output_size_sym.size() != 2) return std::nullopt;
  if (self.is_complex() || self.scalar_type() == at::kBool) return std::nullopt;  // index_add's dtypes
  const int64_t height = output_size_sym[0].expect_int(), width = output_size_sym[1].expect_int();
  const Windows g = windows_of(kernel_size, dilation, padding, stride);
  at::native::col2im_shape_check(self, at::Tensor(), height, width, g.h.kernel, g.w.kernel, g.h.dilation,
                                 g.w.dilation, g.h.padding, g.w.padding, g.h.stride, g.w.stride);
  const bool batched = self.dim() == 3;
  const at::Tensor columns = batched ? self : self.unsqueeze(0);
  const int64_t n = columns.size(0), kernel_area = g.h.kernel * g.w.kernel;
  const int64_t c = columns.size(1) / kernel_area;
  const int64_t oh = g.h.windows(height), ow = g.w.windows(width);
  const int64_t padded_h = height + 2 * g.h.padding, padded_w = width + 2 * g.w.padding;
  // The flat padded-image position of column element (c, ki, kj, oi, oj): the window's origin plus the tap.
  const auto long_options = self.options().dtype(at::kLong);
  const auto along = [&](int64_t count, int64_t step, std::initializer_list<int64_t> shape) {
    return at::arange(count, long_options).mul_(step).reshape(shape);
  };
  const at::Tensor position = (along(c, padded_h * padded_w, {c, 1, 1, 1, 1}) +
                               along(g.h.kernel, g.h.dilation * padded_w, {1, g.h.kernel, 1, 1, 1}) +
                               along(g.w.kernel, g.w.dilation, {1, 1, g.w.kernel, 1, 1}) +
                               along(oh, g.h.stride * padded_w, {1, 1, 1, oh, 1}) +
                               along(ow, g.w.stride, {1, 1, 1, 1, ow}))
                                  .reshape({-1});
  at::Tensor image = at::zeros({n, c * padded_h * padded_w}, self.options());
  image.index_add_(1, position, columns.reshape({n, columns.size(1) * columns.size(2)}));
  const at::Tensor cropped = image.view({n, c, padded_h, padded_w})
                                 .narrow(2, g.h.padding, height)
                                 .narrow(3, g.w.padding, width)
                                 .contiguous();
  return batched ? cropped : cropped.squeeze(0);
}

bool native_im2col_out(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef dilation,
                       at::IntArrayRef padding, at::IntArrayRef stride, at::Tensor& out) {
  return write_out(native_im2col(self, kernel_size, dilation, padding, stride), out);
}
bool native_col2im_out(const at::Tensor& self, c10::SymIntArrayRef output_size, at::IntArrayRef kernel_size,
                       at::IntArrayRef dilation, at::IntArrayRef padding, at::IntArrayRef stride, at::Tensor& out) {
  return write_out(native_col2im(self, output_size, kernel_size, dilation, padding, stride), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, im2col, "im2col", launches(), native_im2col);
  HAL_NATIVE(m, im2col_out, "im2col.out", launches(), native_im2col_out);
  HAL_NATIVE(m, col2im, "col2im", launches(), native_col2im);
  HAL_NATIVE(m, col2im_out, "col2im.out", launches(), native_col2im_out);
}

}  // namespace
}  // namespace torch_hal::native
