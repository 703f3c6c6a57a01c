// What the SPIR-V adapters' DeviceKernels share: running an op's shared launch plan (../spirv_kernels/
// launch_plan.h) on one device, and the slot that keeps one module's build. Header-only: each adapter's
// DeviceKernels derives from PlanLauncher with its own kernels and its own runtime's stream or queue.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "launch_plan.h"
#include "torch_hal/adapter.h"

namespace hal_spirv_shell {

// One module on one device, built at its first use: a failed build's reason (with its log) is kept and repeated
// rather than the build tried again at every launch.
template <typename Handle>
struct ModuleSlot {
  // True at the first use alone, when the build is tried.
  bool first_use() { return !std::exchange(tried, true); }

  bool tried = false;
  std::string error;
  Handle module{};
};

// The base of an adapter's DeviceKernels (CRTP), which provides, for PlanLauncher alone (a friend):
//   kernel_of(launch, error)          the launch's kernel, made at its first use; null, *error set, where it fails
//   submit(target, launch, error)     the launch's arguments and size set, and the launch submitted on `target`
//   submitted(target)                 after a plan's launches are all submitted (OpenCL flushes the queue here)
// `Target` is what a hal stream is to the runtime: Level Zero's command list wrapper, OpenCL's queue.
template <typename Kernels, typename Target>
class PlanLauncher {
 public:
  // Submits the op on `target`; NOT_SUPPORTED, with nothing submitted, for what no plan takes. On failure,
  // *error says why.
  hal_status_t launch(Target target, hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs,
                      const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                      int32_t num_scalars, std::string* error) {
    std::vector<hal_spirv::Launch> launches;
    hal_status_t st = hal_spirv::plan(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, &launches);
    if (st != HAL_STATUS_SUCCESS || launches.empty()) return st;
    Kernels& self = static_cast<Kernels&>(*this);
    std::lock_guard<std::mutex> lock(mutex_);
    // Every kernel of the plan made first: a module that fails to build leaves nothing submitted, and the
    // fallback runs the op (the adapter says why).
    for (const hal_spirv::Launch& l : launches) {
      if (self.kernel_of(l, error) == nullptr) return HAL_STATUS_NOT_SUPPORTED;
    }
    for (const hal_spirv::Launch& l : launches) {
      // A later launch failing leaves the earlier ones submitted: the op cannot go to the fallback then.
      st = self.submit(target, l, error);
      if (st != HAL_STATUS_SUCCESS) return &l == &launches[0] ? st : HAL_STATUS_DEVICE_ERROR;
    }
    self.submitted(target);
    return HAL_STATUS_SUCCESS;
  }

 protected:
  PlanLauncher() = default;
  ~PlanLauncher() = default;

 private:
  std::mutex mutex_;  // a kernel object's arguments (and group size) are set and submitted under it
};

}  // namespace hal_spirv_shell
