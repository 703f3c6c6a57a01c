// torch._foreach_norm, which clip_grad_norm_ calls over every gradient: ONE launch of the adapter's
// FOREACH_NORM kernel for the whole list where it applies (every tensor dense, real floating and on one hal
// device with native kernels), else ATen's per-tensor kernel (a linalg.vector_norm each), which raises
// PyTorch's own errors and runs each norm natively or by its fallback.
#include <ATen/native/ForeachUtils.h>
#include <ATen/ops/_foreach_norm_native.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <cmath>
#include <limits>
#include <vector>

#include "dispatch/kernel_table.h"
#include "dispatch/native_launch.h"

namespace torch_hal::native {
namespace {

// The one launch, or false (nothing launched) where the list is outside what it handles.
bool foreach_norm_fast(at::TensorList self, const c10::Scalar& ord, std::optional<at::ScalarType> dtype,
                       std::vector<at::Tensor>& results) {
  if (self.empty() || ord.isComplex()) return false;
  const at::Device device = self[0].device();
  if (device.type() != c10::DeviceType::PrivateUse1 || !has_native_kernels(device.index())) return false;
  const double p = ord.toDouble();
  const bool needs_elements = p < 0 || p == std::numeric_limits<double>::infinity();  // no identity: ATen raises
  for (const at::Tensor& t : self) {
    if (!t.defined() || t.device() != device || t.layout() != at::kStrided || !floating_in_abi(t.scalar_type()) ||
        !t.is_contiguous() || (needs_elements && t.numel() == 0)) {
      return false;
    }
    // A dtype narrower than a tensor's is ATen's error (from the per-tensor path).
    if (dtype.has_value() && (!floating_in_abi(*dtype) || at::promoteTypes(t.scalar_type(), *dtype) != *dtype)) {
      return false;
    }
  }
  results.clear();
  results.reserve(self.size());
  KernelArgs args;
  for (const at::Tensor& t : self) {
    results.push_back(at::empty({}, t.options().dtype(dtype.value_or(t.scalar_type()))));
    args.input(t);
  }
  for (const at::Tensor& r : results) args.output(r);
  args.scalar(p);
  return launch(device.index(), HAL_OP_FOREACH_NORM, args);
}

std::vector<at::Tensor> foreach_norm(at::TensorList self, const c10::Scalar& ord, std::optional<at::ScalarType> dtype) {
  at::native::check_foreach_api_restrictions(self);
  std::vector<at::Tensor> results;
  if (foreach_norm_fast(self, ord, dtype, results)) return results;
  return at::native::foreach_tensor_norm_slow(self, ord, dtype);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  impl_recorded(m, Route::Foreach, "_foreach_norm.Scalar", TORCH_FN(foreach_norm), launches(HAL_OP_FOREACH_NORM));
}

}  // namespace
}  // namespace torch_hal::native
