#include "transfer/copy_kernel.h"

#include <ATen/ops/view_as_real.h>

#include "dispatch/native_launch.h"

namespace torch_hal::native {

bool copy_on_device(const at::Tensor& dst, const at::Tensor& src) {
  const c10::DeviceIndex device = dst.device().index();
  if (!has_native_kernels(device)) return false;
  if (dst.numel() == 0) return true;
  // A broadcast source becomes a view with zero strides; KernelArgs points into its geometry, so the
  // view lives until the launch returns.
  const at::Tensor source = src.sizes() == dst.sizes() ? src : src.expand(dst.sizes());
  // Complex values (outside the ABI's dtypes) of one dtype move as their real views: (real, imag) pairs of the
  // matching float dtype in the same layout. copy_ resolved the conjugate and negative bits before this.
  if (dst.is_complex() && src.scalar_type() == dst.scalar_type() && !dst.is_conj() && !source.is_conj() &&
      !dst.is_neg() && !source.is_neg()) {
    return copy_on_device(at::view_as_real(dst), at::view_as_real(source));
  }
  KernelArgs args;
  args.input(source).output(dst);
  return launch(device, HAL_OP_COPY, args);
}

}  // namespace torch_hal::native
