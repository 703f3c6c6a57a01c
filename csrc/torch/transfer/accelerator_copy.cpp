#include "transfer/accelerator_copy.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <cstring>
#include <optional>

#include "dispatch/tensor_bridge.h"
#include "hal/copy_engine.h"
#include "hal/streams.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

bool is_other_accelerator(const at::Tensor& t) { return t.defined() && t.device().is_cuda(); }

// The hal device that drives the GPU `t` lives on: a device of the nvidia or amd adapter whose own number is the
// CUDA (HIP) device number. Both runtimes number the GPUs the process sees in the same order (the same
// CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES), and a device pointer of one is valid in the other within a process.
std::optional<c10::DeviceIndex> hal_device_driving(const at::Tensor& t) {
  const int count = device_count();
  for (int i = 0; i < count; ++i) {
    const hal::Device& d = device(static_cast<c10::DeviceIndex>(i));
    const char* adapter = d.adapter->name().c_str();
    const bool gpu_adapter = std::strcmp(adapter, "nvidia") == 0 || std::strcmp(adapter, "amd") == 0;
    if (gpu_adapter && d.local_index == t.device().index()) {
      return static_cast<c10::DeviceIndex>(i);
    }
  }
  return std::nullopt;
}

// Waits for the work queued so far on the other accelerator's current stream of t's device: the producer of a
// source, or the last user of a destination's memory (its caching allocator may have handed it on).
void wait_for_other_accelerator(const at::Tensor& t) {
  const auto* guard = c10::impl::getDeviceGuardImpl(t.device().type());
  guard->getStream(t.device()).synchronize();
}

// Same dtype, sizes and dense strides on both sides: the bytes themselves. The two runtimes share no stream or
// event, so their order is kept by the host: the other accelerator's queued work completes before hal's copy is
// queued, and hal's copy completes before this returns (the other accelerator's next kernel may read the
// destination or reuse the source's memory).
void copy_dense_bytes(const at::Tensor& src, const at::Tensor& dst, c10::DeviceIndex hal_device) {
  const bool src_other = is_other_accelerator(src);
  wait_for_other_accelerator(src_other ? src : dst);
  const auto stream = hal::current_stream(hal_device);
  call_core([&] {
    hal::copy_device_to_device(hal_device, first_element_byte(dst), hal_device, first_element_byte(src), dst.nbytes(),
                               stream, /*non_blocking=*/false);
  });
}

}  // namespace

bool is_accelerator_copy(const at::Tensor& src, const at::Tensor& dst) {
  return (is_hal(src) && is_other_accelerator(dst)) || (is_other_accelerator(src) && is_hal(dst));
}

void copy_accelerator_tensor(const at::Tensor& src, const at::Tensor& dst) {
  if (dst.numel() == 0) return;
  const at::Tensor& other = is_other_accelerator(src) ? src : dst;
  const at::Tensor& hal = is_hal(src) ? src : dst;
  const auto driving = hal_device_driving(other);
  // Through host memory: a GPU hal does not drive (the host device, another vendor's device).
  if (!driving.has_value()) {
    dst.copy_(src.cpu());
    return;
  }
  // hal's device for the GPU may be another than hal's tensor's (cuda:1 into hal:0): a hal peer copy then follows.
  const c10::DeviceIndex gpu = *driving;
  if (src.dtype() == dst.dtype() && same_dense_layout(src, dst) && hal.device().index() == gpu) {
    return copy_dense_bytes(src, dst, gpu);
  }
  // Otherwise a dense tensor of the source's values on hal's device for that GPU, then each side's own copy_
  // converts dtype and layout on its device.
  const c10::Device hal_gpu(kHal, gpu);
  if (is_hal(dst)) {
    const at::Tensor dense = src.contiguous();  // on the other accelerator
    at::Tensor staged = at::empty(dense.sizes(), dense.options().device(hal_gpu));
    copy_dense_bytes(dense, staged, gpu);
    dst.copy_(staged);
  } else {
    at::Tensor dense = at::empty(dst.sizes(), src.options().dtype(dst.dtype()).device(hal_gpu));
    dense.copy_(src);
    at::Tensor staged = at::empty(dense.sizes(), dst.options());
    copy_dense_bytes(dense, staged, gpu);
    dst.copy_(staged);
  }
}

}  // namespace torch_hal
