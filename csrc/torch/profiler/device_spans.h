// A profiler's spans over work the glue runs on a hal device (hal/device_activity.h): nothing at all, not
// even a name, unless a profiler session observes device activity.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "hal/device_activity.h"
#include "hal/pinned_memory.h"
#include "hal/streams.h"
#include "runtime/hal_context.h"

namespace torch_hal::profiler {

// A kernel on the device's current stream, named "<adapter>::<op>": "host::add.Tensor" for ATen's CPU kernel
// run in place on the host device, "nvidia::matmul" for an adapter's native kernel. The prefix also keeps the
// kernel's row in key_averages() apart from the row of the CPU op that launched it, which has the op's name.
template <typename OpNameFn>
hal::DeviceSpan kernel_span(c10::DeviceIndex device, OpNameFn&& op_name) {
  if (!hal::activity_observed()) return {};
  return call_core([&] {
    return hal::DeviceSpan(hal::ActivityKind::Kernel, device, hal::current_stream(device),
                           [&] { return torch_hal::device(device).adapter->name() + "::" + op_name(); });
  });
}

// "add.Tensor" for aten::add.Tensor: the name of an ATen op without its namespace.
inline std::string short_op_name(const std::string& name, const std::string& overload) {
  const std::string bare = name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
  return overload.empty() ? bare : bare + "." + overload;
}

// A copy_ between tensors of which at least one is on hal, done by the CPU on host-accessible memory (the
// copies of the core's copy engine time themselves): on the current stream of the destination's device, or
// of the source's for a copy to the CPU.
inline hal::DeviceSpan copy_span(const at::Tensor& src, const at::Tensor& dst) {
  if (!hal::activity_observed()) return {};
  const bool src_hal = src.device().type() == kHal, dst_hal = dst.device().type() == kHal;
  const c10::DeviceIndex device = dst_hal ? dst.device().index() : src.device().index();
  const hal_copy_kind_t kind = !src_hal ? HAL_COPY_HOST_TO_DEVICE
                               : !dst_hal ? HAL_COPY_DEVICE_TO_HOST
                                          : HAL_COPY_DEVICE_TO_DEVICE;
  const at::Tensor& host = src_hal ? dst : src;
  const bool pinned = kind != HAL_COPY_DEVICE_TO_DEVICE && hal::is_pinned(host.storage().data_ptr().get());
  const bool peer = kind == HAL_COPY_DEVICE_TO_DEVICE && src.device() != dst.device();
  return call_core([&] {
    return hal::copy_span(device, hal::current_stream(device), kind, dst.numel() * dst.element_size(), pinned, peer);
  });
}

}  // namespace torch_hal::profiler
