// The HIP runtime as the AMD adapter sees it: the C entry points it calls, resolved with dlopen from
// whichever libamdhip64 the machine has (ROCm 7, 6 or 5), so the adapter builds without ROCm headers and
// loads, saying why it is unavailable, on machines without ROCm. Only types whose layout is the same in
// every HIP version are used: opaque handles, ints, sizes (never hipDeviceProp_t, which changed size).
#pragma once

#include <cstddef>
#include <string>

#include "../adapter_support/loaded_library.h"

namespace hal_amd {

using hipError_t = int;
using hipStream_t = struct ihipStream_t*;
using hipEvent_t = struct ihipEvent_t*;
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;

constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorOutOfMemory = 2;
constexpr hipError_t hipErrorNoDevice = 100;
constexpr hipError_t hipErrorNotReady = 600;

// hipDeviceAttribute_t values (the same in HIP 5.2 to 7.x).
enum HipAttribute : int {
  kAttrClockRate = 5,
  kAttrComputeCapabilityMajor = 23,
  kAttrMaxThreadsPerBlock = 56,
  kAttrMemoryBusWidth = 59,
  kAttrMemoryClockRate = 60,
  kAttrComputeCapabilityMinor = 61,
  kAttrMultiprocessorCount = 63,
  kAttrPciBusId = 67,
  kAttrPciDeviceId = 68,
  kAttrPciDomainId = 69,
  kAttrMaxSharedMemoryPerBlock = 74,
  kAttrWarpSize = 87,
};

constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr int kMemcpyDefault = 4;  // hipMemcpyDefault: the runtime tells the direction from the pointers
constexpr unsigned kIpcMemLazyEnablePeerAccess = 0x1;

// hipIpcMemHandle_t: 64 opaque bytes (HIP_IPC_HANDLE_SIZE), passed by value, in every HIP version.
struct HipIpcMemHandle {
  char reserved[64];
};

// The runtime's entry points: X(member, function type, symbol).
#define HAL_HIP_ENTRY_POINTS(X)                                                                               \
  X(Init, hipError_t(unsigned), "hipInit")                                                                    \
  X(GetDeviceCount, hipError_t(int*), "hipGetDeviceCount")                                                    \
  X(GetDevice, hipError_t(int*), "hipGetDevice")                                                              \
  X(SetDevice, hipError_t(int), "hipSetDevice")                                                               \
  X(DeviceGetAttribute, hipError_t(int*, int, int), "hipDeviceGetAttribute")                                  \
  X(DeviceGetName, hipError_t(char*, int, int), "hipDeviceGetName")                                           \
  X(DeviceTotalMem, hipError_t(size_t*, int), "hipDeviceTotalMem")                                            \
  X(MemGetInfo, hipError_t(size_t*, size_t*), "hipMemGetInfo")                                                \
  X(DeviceSynchronize, hipError_t(), "hipDeviceSynchronize")                                                  \
  X(GetErrorName, const char*(hipError_t), "hipGetErrorName")                                                 \
  X(GetErrorString, const char*(hipError_t), "hipGetErrorString")                                             \
  X(Malloc, hipError_t(void**, size_t), "hipMalloc")                                                          \
  X(Free, hipError_t(void*), "hipFree")                                                                       \
  X(HostMalloc, hipError_t(void**, size_t, unsigned), "hipHostMalloc")                                        \
  X(HostFree, hipError_t(void*), "hipHostFree")                                                               \
  X(MemsetAsync, hipError_t(void*, int, size_t, hipStream_t), "hipMemsetAsync")                               \
  X(MemcpyAsync, hipError_t(void*, const void*, size_t, int, hipStream_t), "hipMemcpyAsync")                  \
  X(MemcpyPeerAsync, hipError_t(void*, int, const void*, int, size_t, hipStream_t), "hipMemcpyPeerAsync")     \
  X(IpcGetMemHandle, hipError_t(HipIpcMemHandle*, void*), "hipIpcGetMemHandle")                               \
  X(IpcOpenMemHandle, hipError_t(void**, HipIpcMemHandle, unsigned), "hipIpcOpenMemHandle")                   \
  X(IpcCloseMemHandle, hipError_t(void*), "hipIpcCloseMemHandle")                                             \
  X(StreamCreateWithFlags, hipError_t(hipStream_t*, unsigned), "hipStreamCreateWithFlags")                    \
  X(StreamDestroy, hipError_t(hipStream_t), "hipStreamDestroy")                                               \
  X(StreamSynchronize, hipError_t(hipStream_t), "hipStreamSynchronize")                                       \
  X(StreamQuery, hipError_t(hipStream_t), "hipStreamQuery")                                                   \
  X(StreamWaitEvent, hipError_t(hipStream_t, hipEvent_t, unsigned), "hipStreamWaitEvent")                     \
  X(EventCreateWithFlags, hipError_t(hipEvent_t*, unsigned), "hipEventCreateWithFlags")                       \
  X(EventDestroy, hipError_t(hipEvent_t), "hipEventDestroy")                                                  \
  X(EventRecord, hipError_t(hipEvent_t, hipStream_t), "hipEventRecord")                                       \
  X(EventQuery, hipError_t(hipEvent_t), "hipEventQuery")                                                      \
  X(EventSynchronize, hipError_t(hipEvent_t), "hipEventSynchronize")                                          \
  X(EventElapsedTime, hipError_t(float*, hipEvent_t, hipEvent_t), "hipEventElapsedTime")                      \
  X(ModuleLoadData, hipError_t(hipModule_t*, const void*), "hipModuleLoadData")                               \
  X(ModuleGetFunction, hipError_t(hipFunction_t*, hipModule_t, const char*), "hipModuleGetFunction")          \
  X(ModuleLaunchKernel, hipError_t(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, \
                                   unsigned, hipStream_t, void**, void**), "hipModuleLaunchKernel")

struct HipApi {
  HAL_ENTRY_POINT_TABLE(HAL_HIP_ENTRY_POINTS)
};

// The runtime's entry points, loaded on first call; nullptr when no usable libamdhip64 exists, with the
// reason (and the fix) in *why.
const HipApi* hip_api(std::string* why);

// "hipErrorName: description" for `error`, from the loaded runtime.
std::string hip_error_text(hipError_t error);

}  // namespace hal_amd
