// The OpenCL adapter's native kernels (launch_op): the shared SPIR-V modules (../spirv_kernels) built for one device at
// their first launch, and the launches that the shared plans (launch_plan.h) give for an adapter op, set
// with clSetKernelArg(SVMPointer) and queued in order. What no plan takes is NOT_SUPPORTED, which sends the op
// to the core's counted fallback.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "launch_plan.h"
#include "opencl_api.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

class DeviceKernels {
 public:
  DeviceKernels(const OpenClApi& cl, cl_context context, cl_device_id device);
  ~DeviceKernels();
  DeviceKernels(const DeviceKernels&) = delete;
  DeviceKernels& operator=(const DeviceKernels&) = delete;

  // Queues the op on `queue`; NOT_SUPPORTED, with nothing queued, for what it does not take. On failure,
  // *error says why.
  hal_status_t launch(cl_command_queue queue, hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs,
                      const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                      int32_t num_scalars, std::string* error);

 private:
  struct Program {
    bool tried = false;
    std::string error;  // the build's failure (with its log), kept and repeated
    cl_program program = nullptr;
  };

  // The module's program, built at its first use; nullptr with *error set where it failed.
  cl_program program_of(hal_spirv::Module module, std::string* error);
  // The kernel, created at its first use.
  cl_kernel kernel_of(const hal_spirv::Launch& launch, std::string* error);
  hal_status_t enqueue(cl_command_queue queue, const hal_spirv::Launch& launch, std::string* error);

  const OpenClApi& cl_;
  cl_context context_;
  cl_device_id device_;
  std::mutex mutex_;  // a kernel object's arguments are set and launched under it
  Program programs_[hal_spirv::kModuleCount];
  std::map<std::string, cl_kernel> kernels_;
};

// The table's launch_op: the device's kernels on the stream's queue. (op_supported is the shared plans'
// hal_spirv::op_supported.)
hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars);

}  // namespace hal_opencl
