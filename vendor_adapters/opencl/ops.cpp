#include "ops.h"

#include <vector>

#include "adapter_state.h"

namespace hal_opencl {

DeviceKernels::DeviceKernels(const OpenClApi& cl, cl_context context, cl_device_id device)
    : cl_(cl), context_(context), device_(device) {}

DeviceKernels::~DeviceKernels() {
  for (auto& named : kernels_) cl_.ReleaseKernel(named.second);
  for (auto& p : programs_) {
    if (p.module != nullptr) cl_.ReleaseProgram(p.module);
  }
}

cl_program DeviceKernels::program_of(hal_spirv::Module module, std::string* error) {
  auto& p = programs_[static_cast<int>(module)];
  if (p.first_use()) {
    const hal_spirv::SpirvModule bytes = hal_spirv::module_bytes(module);
    const std::string name = hal_spirv::module_name(module);
    cl_int status = CL_SUCCESS;
    if (bytes.size == 0) {
      p.error = hal_spirv::spirv_missing_reason();
    } else if ((p.module = cl_.CreateProgramWithIL(context_, bytes.bytes, bytes.size, &status)), status != CL_SUCCESS) {
      p.module = nullptr;
      p.error = "clCreateProgramWithIL of the " + name + " module failed: " + cl_error_name(status);
    } else if ((status = cl_.BuildProgram(p.module, 1, &device_, "", nullptr, nullptr)) != CL_SUCCESS) {
      // The log's size first (a log longer than a fixed buffer is not returned at all), then the log itself.
      size_t size = 0;
      std::string log;
      if (cl_.GetProgramBuildInfo(p.module, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) == CL_SUCCESS && size > 1) {
        log.resize(size);
        if (cl_.GetProgramBuildInfo(p.module, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) {
          size = 1;
        }
        log.resize(size - 1);  // without the terminating NUL
      }
      p.error = "clBuildProgram of the " + name + " module failed: " + cl_error_name(status) + ": " + log;
      cl_.ReleaseProgram(p.module);
      p.module = nullptr;
    }
  }
  *error = p.error;
  return p.module;
}

cl_kernel DeviceKernels::kernel_of(const hal_spirv::Launch& launch, std::string* error) {
  auto found = kernels_.find(launch.kernel);
  if (found != kernels_.end()) return found->second;
  cl_program program = program_of(launch.module, error);
  if (program == nullptr) return nullptr;
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = cl_.CreateKernel(program, launch.kernel, &status);
  if (status != CL_SUCCESS) {
    *error = std::string("clCreateKernel ") + launch.kernel + ": " + cl_error_name(status);
    return nullptr;
  }
  kernels_.emplace(launch.kernel, kernel);
  return kernel;
}

hal_status_t DeviceKernels::submit(cl_command_queue queue, const hal_spirv::Launch& launch, std::string* error) {
  cl_kernel kernel = kernel_of(launch, error);  // made by launch() already
  cl_int status = CL_SUCCESS;
  for (cl_uint i = 0; i < launch.args.size() && status == CL_SUCCESS; ++i) {
    const hal_spirv::KernelArg& a = launch.args[i];
    status = a.kind == hal_spirv::KernelArg::Kind::Pointer ? cl_.SetKernelArgSVMPointer(kernel, i, a.pointer)
                                                            : cl_.SetKernelArg(kernel, i, a.size, a.value);
  }
  if (status != CL_SUCCESS) {
    *error = std::string("clSetKernelArg for ") + launch.kernel + ": " + cl_error_name(status);
    return HAL_STATUS_DEVICE_ERROR;
  }
  const bool local = launch.local[0] != 0;
  status = cl_.EnqueueNDRangeKernel(queue, kernel, launch.dims, nullptr, launch.global, local ? launch.local : nullptr,
                                    0, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    *error = std::string("clEnqueueNDRangeKernel ") + launch.kernel + ": " + cl_error_name(status);
    return status == CL_OUT_OF_RESOURCES ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR;
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_opencl
