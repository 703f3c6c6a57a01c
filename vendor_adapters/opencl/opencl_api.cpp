#include "opencl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "library_file_check.h"

namespace hal_opencl {
namespace {

struct Loaded {
  OpenClApi api{};
  std::string why;  // empty when api is complete
};

template <typename F>
bool resolve(void* library, const char* name, F* slot, std::string* missing) {
  *slot = reinterpret_cast<F>(dlsym(library, name));
  if (*slot == nullptr && missing->empty()) *missing = name;
  return *slot != nullptr;
}

Loaded load() {
  Loaded out;
  const char* configured = std::getenv("TORCH_HAL_OPENCL_LIBRARY");
  const std::string name = configured != nullptr && *configured != '\0' ? configured : "libOpenCL.so.1";
  if (const std::string problem = hal_library_check::configured_library_problem(name); !problem.empty()) {
    out.why = "no OpenCL library: " + name + " (TORCH_HAL_OPENCL_LIBRARY) " + problem +
              ". Point TORCH_HAL_OPENCL_LIBRARY at a complete OpenCL implementation, or unset it";
    return out;
  }
  // RTLD_LOCAL: the runtime's own dependencies (TBB, LLVM) stay out of the process's global symbol scope.
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    out.why = "no OpenCL library: dlopen(\"" + name + "\") failed (" + (error ? error : "unknown error") +
              "). Install an OpenCL ICD loader and a driver (Debian: ocl-icd-libopencl1 and your vendor's ICD), or "
              "point TORCH_HAL_OPENCL_LIBRARY at an OpenCL implementation such as Intel's CPU runtime "
              "(pip package intel-opencl-rt: lib/libintelocl.so)";
    return out;
  }
  std::string missing;
  OpenClApi& a = out.api;
  resolve(library, "clGetPlatformIDs", &a.GetPlatformIDs, &missing);
  resolve(library, "clGetPlatformInfo", &a.GetPlatformInfo, &missing);
  resolve(library, "clGetDeviceIDs", &a.GetDeviceIDs, &missing);
  resolve(library, "clGetDeviceInfo", &a.GetDeviceInfo, &missing);
  resolve(library, "clCreateContext", &a.CreateContext, &missing);
  resolve(library, "clReleaseContext", &a.ReleaseContext, &missing);
  resolve(library, "clCreateCommandQueueWithProperties", &a.CreateCommandQueueWithProperties, &missing);
  resolve(library, "clReleaseCommandQueue", &a.ReleaseCommandQueue, &missing);
  resolve(library, "clFlush", &a.Flush, &missing);
  resolve(library, "clFinish", &a.Finish, &missing);
  resolve(library, "clSVMAlloc", &a.SVMAlloc, &missing);
  resolve(library, "clSVMFree", &a.SVMFree, &missing);
  resolve(library, "clEnqueueSVMMemcpy", &a.EnqueueSVMMemcpy, &missing);
  resolve(library, "clEnqueueSVMMemFill", &a.EnqueueSVMMemFill, &missing);
  resolve(library, "clEnqueueMarkerWithWaitList", &a.EnqueueMarkerWithWaitList, &missing);
  resolve(library, "clEnqueueBarrierWithWaitList", &a.EnqueueBarrierWithWaitList, &missing);
  resolve(library, "clWaitForEvents", &a.WaitForEvents, &missing);
  resolve(library, "clGetEventInfo", &a.GetEventInfo, &missing);
  resolve(library, "clGetEventProfilingInfo", &a.GetEventProfilingInfo, &missing);
  resolve(library, "clReleaseEvent", &a.ReleaseEvent, &missing);
  resolve(library, "clCreateProgramWithIL", &a.CreateProgramWithIL, &missing);
  resolve(library, "clBuildProgram", &a.BuildProgram, &missing);
  resolve(library, "clGetProgramBuildInfo", &a.GetProgramBuildInfo, &missing);
  resolve(library, "clReleaseProgram", &a.ReleaseProgram, &missing);
  resolve(library, "clCreateKernel", &a.CreateKernel, &missing);
  resolve(library, "clReleaseKernel", &a.ReleaseKernel, &missing);
  resolve(library, "clSetKernelArg", &a.SetKernelArg, &missing);
  resolve(library, "clSetKernelArgSVMPointer", &a.SetKernelArgSVMPointer, &missing);
  resolve(library, "clEnqueueNDRangeKernel", &a.EnqueueNDRangeKernel, &missing);
  if (!missing.empty()) {
    out.why = name + " has no " + missing +
              ": the OpenCL adapter needs OpenCL 2.1 or later (shared virtual memory, SPIR-V programs)";
    dlclose(library);
  }
  return out;
}

}  // namespace

const OpenClApi* opencl_api(std::string* why) {
  // Loaded once and kept for the life of the process: unloading a runtime with live threads crashes at exit.
  static const Loaded loaded = load();
  if (!loaded.why.empty()) {
    *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

std::string cl_error_name(cl_int code) {
  switch (code) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND (-1)";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES (-5)";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY (-6)";
    case -30: return "CL_INVALID_VALUE (-30)";
    case -33: return "CL_INVALID_DEVICE (-33)";
    case -34: return "CL_INVALID_CONTEXT (-34)";
    case -36: return "CL_INVALID_COMMAND_QUEUE (-36)";
    case -58: return "CL_INVALID_EVENT (-58)";
    case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR (-1001)";
    default: return "OpenCL error " + std::to_string(code);
  }
}

}  // namespace hal_opencl
