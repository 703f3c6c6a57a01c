// GradScaler's two ops (torch.amp): _amp_foreach_non_finite_check_and_unscale_ (every gradient multiplied by
// 1/scale, found_inf set where one holds inf or NaN) as one launch over the whole list, and
// _amp_update_scale_ on the device, so a mixed-precision step needs no host round trip for either.
// Outside what the kernels handle (non-dense gradients, tensors on several devices, dtypes other than
// CUDA's), each takes its usual route, which also raises ATen's errors for bad arguments.
#include <torch/library.h>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

bool one_element(const at::Tensor& t, const at::Device& device, at::ScalarType dtype) {
  return t.defined() && t.device() == device && t.scalar_type() == dtype && t.numel() == 1 &&
         t.layout() == at::kStrided;
}

bool unscale(at::TensorList self, at::Tensor& found_inf, const at::Tensor& inv_scale) {
  const at::Device device = inv_scale.device();
  if (!one_element(inv_scale, device, at::kFloat) || !one_element(found_inf, device, at::kFloat)) return false;
  for (const at::Tensor& t : self) {
    if (!t.defined() || t.device() != device || t.layout() != at::kStrided || !floating_in_abi(t.scalar_type()) ||
        !t.is_contiguous()) {
      return false;
    }
  }
  if (self.empty()) return true;
  KernelArgs args;
  args.input(inv_scale).output(found_inf);
  for (const at::Tensor& t : self) args.output(t);
  return launch(device.index(), HAL_OP_AMP_UNSCALE, args);
}

bool update_scale(at::Tensor& self, at::Tensor& growth_tracker, const at::Tensor& found_inf, double growth_factor,
                  double backoff_factor, int64_t growth_interval) {
  const at::Device device = self.device();
  if (!one_element(self, device, at::kFloat) || !one_element(growth_tracker, device, at::kInt) ||
      !one_element(found_inf, device, at::kFloat)) {
    return false;
  }
  KernelArgs args;
  args.input(found_inf).output(self).output(growth_tracker).scalar(growth_factor).scalar(backoff_factor).scalar(
      growth_interval);
  return launch(device.index(), HAL_OP_AMP_UPDATE_SCALE, args);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _amp_foreach_non_finite_check_and_unscale_, "_amp_foreach_non_finite_check_and_unscale_",
             launches(HAL_OP_AMP_UNSCALE), unscale);
  HAL_NATIVE(m, _amp_update_scale_, "_amp_update_scale_", launches(HAL_OP_AMP_UPDATE_SCALE), update_scale);
}

}  // namespace
}  // namespace torch_hal::native
