// The OpenCL adapter's native kernels (launch_op): the shared SPIR-V modules (../spirv_kernels) built for one device at
// their first launch, and the launches that the shared plans (launch_plan.h) give for an adapter op, set
// with clSetKernelArg(SVMPointer) and queued in order. Running a plan is the SPIR-V shell's
// (../spirv_shell/plan_launcher.h), as is launch_op (../spirv_shell/ops.cpp).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "launch_plan.h"
#include "../spirv_shell/plan_launcher.h"
#include "abi_entries.h"
#include "opencl_api.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

class DeviceKernels : public hal_spirv_shell::PlanLauncher<DeviceKernels, cl_command_queue> {
 public:
  DeviceKernels(const OpenClApi& cl, cl_context context, cl_device_id device);
  ~DeviceKernels();
  DeviceKernels(const DeviceKernels&) = delete;
  DeviceKernels& operator=(const DeviceKernels&) = delete;

 private:
  friend class hal_spirv_shell::PlanLauncher<DeviceKernels, cl_command_queue>;  // launch() runs a plan over these

  // The module's program, built at its first use; nullptr with *error set where it failed.
  cl_program program_of(hal_spirv::Module module, std::string* error);
  // The kernel, created at its first use.
  cl_kernel kernel_of(const hal_spirv::Launch& launch, std::string* error);
  // The kernel's arguments set, and the launch queued in order.
  hal_status_t submit(cl_command_queue queue, const hal_spirv::Launch& launch, std::string* error);
  // Commands start once the queue is flushed; without it an OpenCL runtime may hold them until a wait.
  void submitted(cl_command_queue queue) { cl_.Flush(queue); }

  const OpenClApi& cl_;
  cl_context context_;
  cl_device_id device_;
  hal_spirv_shell::ModuleSlot<cl_program> programs_[hal_spirv::kModuleCount];
  std::map<std::string, cl_kernel> kernels_;
};

// launch_op is the SPIR-V shell's (../spirv_shell/ops.cpp); op_supported, the shared plans'.
HAL_ABI_ENTRY(launch_op);

}  // namespace hal_opencl
