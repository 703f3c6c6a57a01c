#include "transfer/copy_kernel.h"

#include "dispatch/native_launch.h"

namespace torch_hal::native {

bool copy_on_device(const at::Tensor& dst, const at::Tensor& src) {
  const c10::DeviceIndex device = dst.device().index();
  if (!has_native_kernels(device)) return false;
  if (dst.numel() == 0) return true;
  // A broadcast source becomes a view with zero strides; KernelArgs points into its geometry, so the
  // view lives until the launch returns.
  const at::Tensor source = src.sizes() == dst.sizes() ? src : src.expand(dst.sizes());
  KernelArgs args;
  args.input(source).output(dst);
  return launch(device, HAL_OP_COPY, args);
}

}  // namespace torch_hal::native
