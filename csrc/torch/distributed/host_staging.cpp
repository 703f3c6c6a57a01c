#include "distributed/host_staging.h"

#include <c10/core/DeviceGuard.h>

#include "hal/streams.h"
#include "runtime/hal_context.h"

namespace torch_hal::distributed {

void HostStaging::wait_for_current_stream(const at::Tensor& t) {
  const int index = t.device().index();
  if (!waited_devices_.insert(index).second) return;
  call_core([&] { hal::synchronize_stream(index, hal::current_stream(index)); });
}

at::Tensor HostStaging::host(const at::Tensor& t, Role role) {
  // backend="hal" serves the group's CPU tensors too: gloo takes them as they are.
  if (t.device().is_cpu()) return t;
  TORCH_CHECK(t.device().type() == kHal, "torch_hal's process group backend got a tensor on ", t.device(),
              "; it serves hal and CPU tensors (use the device's own backend for others, e.g. "
              "init_process_group(backend=\"cpu:gloo,hal:hal,cuda:nccl\"))");
  keep_alive_.push_back(t);
  at::Tensor h;
  if (device(t.device().index()).host_accessible()) {
    wait_for_current_stream(t);
    // The CPU view aliases the hal memory; keep_alive_ holds the storage for as long as the engine runs.
    h = at::from_blob(t.data_ptr(), t.sizes(), t.strides(), [](void*) {}, t.options().device(at::kCPU));
  } else if (role == Role::Out) {
    h = at::empty(t.sizes(), t.options().device(at::kCPU));
  } else {
    h = t.to(at::kCPU, /*non_blocking=*/false, /*copy=*/true).contiguous();
  }
  if (role != Role::In) outputs_.emplace_back(t, h);
  return h;
}

std::vector<at::Tensor> HostStaging::host(const std::vector<at::Tensor>& ts, Role role) {
  std::vector<at::Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(host(t, role));
  return out;
}

std::vector<std::vector<at::Tensor>> HostStaging::host(const std::vector<std::vector<at::Tensor>>& lists,
                                                       Role role) {
  std::vector<std::vector<at::Tensor>> out;
  out.reserve(lists.size());
  for (const auto& l : lists) out.push_back(host(l, role));
  return out;
}

void HostStaging::finish() {
  for (auto& [hal_tensor, host_tensor] : outputs_) {
    if (divisor_ > 1) {
      if (at::isIntegralType(host_tensor.scalar_type(), /*includeBool=*/false)) {
        host_tensor.div_(divisor_, "trunc");
      } else {
        host_tensor.div_(divisor_);
      }
    }
    if (host_tensor.data_ptr() != hal_tensor.data_ptr()) {
      // This may run on the engine's thread: the device guard makes the copy target the tensor's device.
      c10::DeviceGuard guard(hal_tensor.device());
      hal_tensor.copy_(host_tensor);
    }
  }
  keep_alive_.clear();
}

}  // namespace torch_hal::distributed
