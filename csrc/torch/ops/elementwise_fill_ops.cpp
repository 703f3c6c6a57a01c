// fill_, zero_ and arange(start, end, step, out=): the nullary ops of the elementwise family.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/native/Resize.h>

#include <cmath>
#include <limits>

#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

bool fill_scalar(at::Tensor& self, const c10::Scalar& value);

// A complex tensor is a float tensor of (real, imaginary) pairs: two strided fills of its parts, so that
// adapters need no complex kernels (fft2/fftn start with one).
bool fill_complex(at::Tensor& self, const c10::Scalar& value) {
  if (self.is_conj() || self.is_neg()) return false;  // the op's other paths apply those bits
  const c10::complex<double> z = value.toComplexDouble();
  const at::Tensor parts = at::view_as_real(self);
  at::Tensor real = parts.select(-1, 0), imag = parts.select(-1, 1);
  return fill_scalar(real, z.real()) && fill_scalar(imag, z.imag());
}

bool fill_scalar(at::Tensor& self, const c10::Scalar& value) {
  if (self.is_complex()) return fill_complex(self, value);
  if (value.isComplex()) return false;  // into a real dtype: ATen's own error, from the op's other paths
  // The value must fit the dtype, as ATen's fill checks it (the same overflow error).
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, self.scalar_type(), "fill_",
                             [&] { (void)value.to<scalar_t>(); });
  if (self.numel() == 0) return true;
  KernelArgs args;
  args.output(self).scalar(value);
  return launch(self.device().index(), HAL_OP_FILL, args);
}

bool fill_tensor(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  if (value.device() != self.device()) return fill_scalar(self, value.item());
  if (self.numel() == 0) return true;
  // A device value is copied (broadcast) without a round trip to the host; an alias of self is cloned
  // first so that it is not overwritten while being read.
  const at::Tensor source = self.is_alias_of(value) ? value.clone() : value;
  KernelArgs args;
  args.output(self).input_as(source, self.sizes(), std::vector<int64_t>(self.dim(), 0));
  return launch(self.device().index(), HAL_OP_COPY, args);
}

bool zero(at::Tensor& self) { return fill_scalar(self, 0); }

// arange's length as ATen computes it: integers step exactly, floats through double.
int64_t arange_length(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step, bool integral) {
  const double xstart = start.to<double>(), xend = end.to<double>(), xstep = step.to<double>();
  TORCH_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");
  TORCH_CHECK(std::isfinite(xstart) && std::isfinite(xend), "unsupported range: ", xstart, " -> ", xend);
  TORCH_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
              "upper bound and larger bound inconsistent with step sign");
  double length;
  if (integral) {
    const int64_t s = start.to<int64_t>(), e = end.to<int64_t>(), st = step.to<int64_t>();
    const int64_t sign = (st > 0) - (st < 0);
    length = static_cast<double>((e - s + st - sign) / st);  // integer division: the +st-sign rounds up
  } else {
    length = std::ceil((xend - xstart) / xstep);
  }
  TORCH_CHECK(length >= 0 && length <= static_cast<double>(std::numeric_limits<int64_t>::max()),
              "invalid size, possible overflow?");
  return static_cast<int64_t>(length);
}

bool arange_out(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step, at::Tensor& out) {
  const bool integral = c10::isIntegralType(out.scalar_type(), true);
  if (out.scalar_type() == at::kBool || !hal_dtype_of(out.scalar_type()).has_value()) return false;
  const int64_t length = arange_length(start, end, step, integral);
  if (out.numel() != length) {
    if (out.numel() > 0) {
      TORCH_WARN("The number of elements in the out tensor of shape ", out.sizes(), " is ", out.numel(),
                 " which does not match the computed number of elements ", length,
                 ". Note that this may occur as a result of rounding error. The out tensor will be resized to a "
                 "tensor of shape (", length, ",).");
    }
    out.resize_({length});
  }
  if (length == 0) return true;
  // The kernel writes a 1-D output; arange's out may be any tensor with `length` elements.
  const bool flat = out.dim() == 1;
  at::Tensor target = flat ? out : at::empty({length}, out.options());
  KernelArgs args;
  args.output(target);
  if (integral) args.scalar(start.to<int64_t>()).scalar(step.to<int64_t>());
  else args.scalar(start.to<double>()).scalar(step.to<double>());
  if (!launch(out.device().index(), HAL_OP_ARANGE, args)) return false;
  if (!flat) out.copy_(target.view(out.sizes()));
  return true;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, fill__Scalar, "fill_.Scalar", launches(HAL_OP_FILL), fill_scalar);
  HAL_NATIVE(m, fill__Tensor, "fill_.Tensor", launches(HAL_OP_COPY, HAL_OP_FILL), fill_tensor);
  HAL_NATIVE(m, zero_, "zero_", launches(HAL_OP_FILL), zero);
  HAL_NATIVE(m, arange_start_out, "arange.start_out", launches(HAL_OP_ARANGE), arange_out);
}

}  // namespace
}  // namespace torch_hal::native
