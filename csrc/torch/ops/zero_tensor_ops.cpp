// _efficientzerotensor: the zero tensor autograd hands out for gradients known to be zero (sgn's and abs's at
// complex zero, torch.zeros_like in forward-mode AD, the unused outputs of many backward formulas). As ATen's
// CUDA kernel: a tensor without memory (ZeroTensorAllocator's null pointer), carrying the ZeroTensor dispatch key
// next to the device's, so that ATen's ZeroTensor handling short-cuts arithmetic with it and materializes real
// zeros (at::zeros on the same device, native) for any op that needs its data. Nothing runs on the device and
// nothing is allocated, so without this registration the op took the CPU fallback for no reason.
#include <ATen/EmptyTensor.h>
#include <ATen/native/TensorFactories.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "dispatch/kernel_table.h"
#include "runtime/hal_context.h"

namespace torch_hal::native {
namespace {

at::Tensor efficient_zero_tensor(c10::IntArrayRef size, std::optional<at::ScalarType> dtype,
                                 std::optional<at::Layout> layout, std::optional<c10::Device> device,
                                 std::optional<bool> pin_memory) {
  c10::DeviceIndex index = current_device();
  if (device.has_value() && device->has_index()) {
    TORCH_CHECK(device->type() == kHal, "expected a hal device, got ", *device);
    index = device->index();
  }
  const c10::Device target(kHal, index);
  c10::DeviceGuard guard(target);
  at::native::ZeroTensorAllocator allocator(target);
  const auto keys = c10::DispatchKeySet(c10::DispatchKey::PrivateUse1) | c10::DispatchKeySet(c10::DispatchKey::ZeroTensor);
  return at::detail::empty_generic(size, &allocator, keys, c10::dtype_or_default(dtype), std::nullopt);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  impl_recorded(m, Route::Runtime, "_efficientzerotensor", TORCH_FN(efficient_zero_tensor));
}

}  // namespace
}  // namespace torch_hal::native
