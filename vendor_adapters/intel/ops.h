// The Level Zero adapter's native kernels: the shared SPIR-V modules (../spirv_kernels) built for one device
// at their first launch (zeModuleCreate), and the launches that the shared plans (launch_plan.h) give for an
// adapter op, set with zeKernelSetArgumentValue and appended to the stream's immediate command list. Running a
// plan is the SPIR-V shell's (../spirv_shell/plan_launcher.h), as is launch_op (../spirv_shell/ops.cpp); the
// same plans drive the OpenCL adapter: the kernels' argument conventions live in launch_plan.cpp once.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "launch_plan.h"
#include "../spirv_shell/plan_launcher.h"
#include "level_zero_api.h"
#include "handles.h"
#include "command_list.h"
#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {

class DeviceKernels : public hal_spirv_shell::PlanLauncher<DeviceKernels, Stream&> {
 public:
  // `build_flags` go to every module's build (zeModuleCreate's pBuildFlags).
  DeviceKernels(const LevelZeroApi& ze, ze_context_handle_t context, ze_device_handle_t device,
                std::string build_flags)
      : ze_(ze), context_(context), device_(device), build_flags_(std::move(build_flags)) {}
  DeviceKernels(const DeviceKernels&) = delete;
  DeviceKernels& operator=(const DeviceKernels&) = delete;

 private:
  friend class hal_spirv_shell::PlanLauncher<DeviceKernels, Stream&>;  // launch() runs a plan over these

  // The module, built at its first use; nullptr with *error set where it failed.
  ze_module_handle_t module_of(hal_spirv::Module module, std::string* error);
  // The kernel, created at its first use.
  ze_kernel_handle_t kernel_of(const hal_spirv::Launch& launch, std::string* error);
  // The kernel's arguments and group size set, and the launch appended to the stream's command list.
  hal_status_t submit(Stream& stream, const hal_spirv::Launch& launch, std::string* error);
  void submitted(Stream&) {}  // an immediate command list starts its commands as they are appended

  const LevelZeroApi& ze_;
  ze_context_handle_t context_;
  ze_device_handle_t device_;
  std::string build_flags_;
  hal_spirv_shell::ModuleSlot<Module> programs_[hal_spirv::kModuleCount];
  std::map<std::string, Kernel> kernels_;  // declared after the modules: destroyed before them
};

// launch_op is the SPIR-V shell's (../spirv_shell/ops.cpp); op_supported, the shared plans'.
HAL_ABI_ENTRY(launch_op);

}  // namespace hal_level_zero
