// The OpenCL runtime as the OpenCL adapter sees it: the entry points it calls, resolved with dlopen from the
// ICD loader (libOpenCL.so.1) or from the library TORCH_HAL_OPENCL_LIBRARY names (an OpenCL implementation
// loaded directly, such as Intel's CPU runtime's libintelocl.so), so the adapter builds without OpenCL
// headers and loads, saying why it is unavailable, where there is no OpenCL. The types and constants are
// those of the Khronos headers (CL/cl.h), whose ABI is fixed since OpenCL 1.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hal_opencl {

using cl_int = int32_t;
using cl_uint = uint32_t;
using cl_ulong = uint64_t;
using cl_bitfield = uint64_t;
using cl_platform_id = struct _cl_platform_id*;
using cl_device_id = struct _cl_device_id*;
using cl_context = struct _cl_context*;
using cl_command_queue = struct _cl_command_queue*;
using cl_event = struct _cl_event*;
using cl_program = struct _cl_program*;
using cl_kernel = struct _cl_kernel*;
using cl_queue_properties = cl_ulong;
using cl_context_properties = intptr_t;

// The values of OpenCL's headers (CL/cl.h, cl_ext.h) that the adapter uses, by what they go to.
// Status codes:
constexpr cl_int CL_SUCCESS = 0, CL_DEVICE_NOT_FOUND = -1, CL_MEM_OBJECT_ALLOCATION_FAILURE = -4,
                 CL_OUT_OF_RESOURCES = -5, CL_OUT_OF_HOST_MEMORY = -6, CL_PLATFORM_NOT_FOUND_KHR = -1001;
// An event's execution status:
constexpr cl_int CL_COMPLETE = 0;
// Device types, a bit each:
constexpr cl_bitfield CL_DEVICE_TYPE_CPU = 1 << 1, CL_DEVICE_TYPE_GPU = 1 << 2, CL_DEVICE_TYPE_ACCELERATOR = 1 << 3,
                      CL_DEVICE_TYPE_ALL = 0xFFFFFFFF;
// clGetPlatformInfo's questions:
constexpr cl_uint CL_PLATFORM_NAME = 0x0902, CL_PLATFORM_VENDOR = 0x0903;
// clGetDeviceInfo's questions:
constexpr cl_uint CL_DEVICE_TYPE = 0x1000, CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002, CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004,
                  CL_DEVICE_MAX_CLOCK_FREQUENCY = 0x100C /* MHz */, CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F,
                  CL_DEVICE_LOCAL_MEM_SIZE = 0x1023, CL_DEVICE_NAME = 0x102B, CL_DEVICE_VENDOR = 0x102C,
                  CL_DEVICE_VERSION = 0x102F, CL_DEVICE_EXTENSIONS = 0x1030, CL_DEVICE_DOUBLE_FP_CONFIG = 0x1032,
                  CL_DEVICE_SVM_CAPABILITIES = 0x1053, CL_DEVICE_IL_VERSION = 0x105B, CL_DEVICE_UUID_KHR = 0x106A,
                  CL_DEVICE_PCI_BUS_INFO_KHR = 0x410F;
// Capability and flag bits:
constexpr cl_bitfield CL_DEVICE_SVM_COARSE_GRAIN_BUFFER = 1 << 0, CL_MEM_READ_WRITE = 1 << 0,
                      CL_QUEUE_PROFILING_ENABLE = 1 << 1;
// Questions of queues, events and programs:
constexpr cl_uint CL_QUEUE_PROPERTIES = 0x1093, CL_EVENT_COMMAND_EXECUTION_STATUS = 0x11D3,
                  CL_PROFILING_COMMAND_END = 0x1283, CL_PROGRAM_BUILD_LOG = 0x1183;

// cl_khr_pci_bus_info's answer.
struct ClPciBusInfo {
  cl_uint domain, bus, device, function;
};

struct OpenClApi {
  cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id*, cl_uint*);
  cl_int (*GetPlatformInfo)(cl_platform_id, cl_uint, size_t, void*, size_t*);
  cl_int (*GetDeviceIDs)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id*, cl_uint*);
  cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void*, size_t*);
  cl_context (*CreateContext)(const cl_context_properties*, cl_uint, const cl_device_id*, void*, void*, cl_int*);
  cl_int (*ReleaseContext)(cl_context);
  cl_command_queue (*CreateCommandQueueWithProperties)(cl_context, cl_device_id, const cl_queue_properties*, cl_int*);
  cl_int (*ReleaseCommandQueue)(cl_command_queue);
  cl_int (*Flush)(cl_command_queue);
  cl_int (*Finish)(cl_command_queue);
  void* (*SVMAlloc)(cl_context, cl_bitfield, size_t, cl_uint);
  void (*SVMFree)(cl_context, void*);
  cl_int (*EnqueueSVMMemcpy)(cl_command_queue, cl_uint, void*, const void*, size_t, cl_uint, const cl_event*,
                             cl_event*);
  cl_int (*EnqueueSVMMemFill)(cl_command_queue, void*, const void*, size_t, size_t, cl_uint, const cl_event*,
                              cl_event*);
  cl_int (*EnqueueMarkerWithWaitList)(cl_command_queue, cl_uint, const cl_event*, cl_event*);
  cl_int (*EnqueueBarrierWithWaitList)(cl_command_queue, cl_uint, const cl_event*, cl_event*);
  cl_int (*WaitForEvents)(cl_uint, const cl_event*);
  cl_int (*GetEventInfo)(cl_event, cl_uint, size_t, void*, size_t*);
  cl_int (*GetEventProfilingInfo)(cl_event, cl_uint, size_t, void*, size_t*);
  cl_int (*ReleaseEvent)(cl_event);
  // Kernels from SPIR-V modules (OpenCL 2.1).
  cl_program (*CreateProgramWithIL)(cl_context, const void*, size_t, cl_int*);
  cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id*, const char*, void*, void*);
  cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void*, size_t*);
  cl_int (*ReleaseProgram)(cl_program);
  cl_kernel (*CreateKernel)(cl_program, const char*, cl_int*);
  cl_int (*ReleaseKernel)(cl_kernel);
  cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void*);
  cl_int (*SetKernelArgSVMPointer)(cl_kernel, cl_uint, const void*);
  cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*,
                                 cl_uint, const cl_event*, cl_event*);
};

// The library named by TORCH_HAL_OPENCL_LIBRARY, else libOpenCL.so.1, loaded once. nullptr, with the reason
// in *why (the library tried, dlerror's text, what to install), where it is absent or lacks an entry point.
const OpenClApi* opencl_api(std::string* why);

// "CL_OUT_OF_RESOURCES (-5)" for the codes the adapter meets, "OpenCL error -n" for the rest.
std::string cl_error_name(cl_int code);

}  // namespace hal_opencl
