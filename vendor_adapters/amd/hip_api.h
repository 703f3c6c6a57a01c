// The HIP runtime as the AMD adapter sees it: the C entry points it calls, resolved with dlopen from
// whichever libamdhip64 the machine has (ROCm 7, 6 or 5), so the adapter builds without ROCm headers and
// loads, saying why it is unavailable, on machines without ROCm. Only types whose layout is the same in
// every HIP version are used: opaque handles, ints, sizes (never hipDeviceProp_t, which changed size).
#pragma once

#include <cstddef>
#include <string>

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

struct HipApi {
  hipError_t (*Init)(unsigned);
  hipError_t (*GetDeviceCount)(int*);
  hipError_t (*GetDevice)(int*);
  hipError_t (*SetDevice)(int);
  hipError_t (*DeviceGetAttribute)(int*, int, int);
  hipError_t (*DeviceGetName)(char*, int, int);
  hipError_t (*DeviceTotalMem)(size_t*, int);
  hipError_t (*MemGetInfo)(size_t*, size_t*);
  hipError_t (*DeviceSynchronize)();
  const char* (*GetErrorName)(hipError_t);
  const char* (*GetErrorString)(hipError_t);
  hipError_t (*Malloc)(void**, size_t);
  hipError_t (*Free)(void*);
  hipError_t (*HostMalloc)(void**, size_t, unsigned);
  hipError_t (*HostFree)(void*);
  hipError_t (*MemsetAsync)(void*, int, size_t, hipStream_t);
  hipError_t (*MemcpyAsync)(void*, const void*, size_t, int, hipStream_t);
  hipError_t (*MemcpyPeerAsync)(void*, int, const void*, int, size_t, hipStream_t);
  hipError_t (*IpcGetMemHandle)(HipIpcMemHandle*, void*);
  hipError_t (*IpcOpenMemHandle)(void**, HipIpcMemHandle, unsigned);
  hipError_t (*IpcCloseMemHandle)(void*);
  hipError_t (*StreamCreateWithFlags)(hipStream_t*, unsigned);
  hipError_t (*StreamDestroy)(hipStream_t);
  hipError_t (*StreamSynchronize)(hipStream_t);
  hipError_t (*StreamQuery)(hipStream_t);
  hipError_t (*StreamWaitEvent)(hipStream_t, hipEvent_t, unsigned);
  hipError_t (*EventCreateWithFlags)(hipEvent_t*, unsigned);
  hipError_t (*EventDestroy)(hipEvent_t);
  hipError_t (*EventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*EventQuery)(hipEvent_t);
  hipError_t (*EventSynchronize)(hipEvent_t);
  hipError_t (*EventElapsedTime)(float*, hipEvent_t, hipEvent_t);
  hipError_t (*ModuleLoadData)(hipModule_t*, const void*);
  hipError_t (*ModuleGetFunction)(hipFunction_t*, hipModule_t, const char*);
  hipError_t (*ModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, hipStream_t, void**, void**);
};

// The runtime's entry points, loaded on first call; nullptr when no usable libamdhip64 exists, with the
// reason (and the fix) in *why.
const HipApi* hip_api(std::string* why);

// "hipErrorName: description" for `error`, from the loaded runtime.
std::string hip_error_text(hipError_t error);

}  // namespace hal_amd
