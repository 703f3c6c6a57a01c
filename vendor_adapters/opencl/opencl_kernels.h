// The OpenCL adapter's native kernels: the kernel library's SPIR-V modules (spirv_modules.h) built for one
// device at its first launch, and the launches of adapter.h's ops on them. Today: elementwise ops (any arity,
// the library's math) on contiguous float32 tensors of one shape; anything else is NOT_SUPPORTED, which sends
// the op to the core's counted fallback.
#pragma once

#include <mutex>
#include <string>

#include "opencl_api.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

class DeviceKernels {
 public:
  DeviceKernels(const OpenClApi& cl, cl_context context, cl_device_id device);
  ~DeviceKernels();
  DeviceKernels(const DeviceKernels&) = delete;
  DeviceKernels& operator=(const DeviceKernels&) = delete;

  // Whether this adapter has a kernel for the op (tensors == nullptr) or for these tensors.
  static bool supports(hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors);

  // Queues the op on `queue`; NOT_SUPPORTED, with nothing queued, for what it does not take. On failure,
  // *error says why.
  hal_status_t launch(cl_command_queue queue, hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs,
                      const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                      int32_t num_scalars, std::string* error);

 private:
  // Builds the program at the first launch; the build's failure (with its log) is kept and repeated.
  bool built(std::string* error);

  const OpenClApi& cl_;
  cl_context context_;
  cl_device_id device_;
  std::mutex mutex_;  // a kernel object's arguments are set and launched under it
  bool tried_ = false;
  std::string build_error_;
  cl_program program_ = nullptr;
  cl_kernel elementwise_[3] = {};  // by arity
};

}  // namespace hal_opencl
