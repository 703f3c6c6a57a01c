// The Level Zero adapter's native kernels: the shared SPIR-V modules (../spirv_kernels) built for one device
// at their first launch (zeModuleCreate), and the launches that the shared plans (launch_plan.h) give for an
// adapter op, set with zeKernelSetArgumentValue and appended to the stream's immediate command list. What no
// plan takes is NOT_SUPPORTED, which sends the op to the core's counted fallback. The same plans drive the
// OpenCL adapter (../opencl/ops.h): the kernels' argument conventions live in launch_plan.cpp once.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "launch_plan.h"
#include "level_zero_api.h"
#include "handles.h"
#include "command_list.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {

class DeviceKernels {
 public:
  // `build_flags` go to every module's build (zeModuleCreate's pBuildFlags).
  DeviceKernels(const LevelZeroApi& ze, ze_context_handle_t context, ze_device_handle_t device,
                std::string build_flags)
      : ze_(ze), context_(context), device_(device), build_flags_(std::move(build_flags)) {}
  DeviceKernels(const DeviceKernels&) = delete;
  DeviceKernels& operator=(const DeviceKernels&) = delete;

  // Appends the op to `stream`; NOT_SUPPORTED, with nothing appended, for what it does not take. On failure,
  // *error says why.
  hal_status_t launch(Stream& stream, hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs,
                      const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                      int32_t num_scalars, std::string* error);

 private:
  struct Program {
    bool tried = false;
    std::string error;  // the build's failure (with its log), kept and repeated
    Module module;
  };

  // The module, built at its first use; nullptr with *error set where it failed.
  ze_module_handle_t module_of(hal_spirv::Module module, std::string* error);
  // The kernel, created at its first use.
  ze_kernel_handle_t kernel_of(const hal_spirv::Launch& launch, std::string* error);
  hal_status_t append(Stream& stream, const hal_spirv::Launch& launch, std::string* error);

  const LevelZeroApi& ze_;
  ze_context_handle_t context_;
  ze_device_handle_t device_;
  std::string build_flags_;
  std::mutex mutex_;  // a kernel object's arguments and group size are set and appended under it
  Program programs_[hal_spirv::kModuleCount];
  std::map<std::string, Kernel> kernels_;  // declared after the modules: destroyed before them
};

// The table's launch_op: the device's kernels on the stream's command list. (op_supported is the shared plans'
// hal_spirv::op_supported.)
hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars);

}  // namespace hal_level_zero
