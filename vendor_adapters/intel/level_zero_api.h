// Level Zero as the Intel adapter sees it: the entry points it calls, resolved with dlopen from the loader
// (libze_loader.so.1) or from the library TORCH_HAL_LEVEL_ZERO_LIBRARY names, so the adapter library loads,
// and says why it has no device, on machines without Level Zero. The headers (Debian's libze-dev, API 1.4)
// give the types and, through decltype, the entry points' types; the adapter never links the loader
// (CMakeLists.txt links with --no-undefined, so a direct call would not build).
#pragma once

#include <level_zero/ze_api.h>

#include <string>

#include "torch_hal/adapter.h"

namespace hal_level_zero {

// Every entry point the adapter needs: a loader without one of them is refused, by name.
#define HAL_ZE_REQUIRED_ENTRY_POINTS(X)                                                                             \
  X(zeInit)                                                                                                        \
  X(zeDriverGet)                                                                                                   \
  X(zeDriverGetApiVersion)                                                                                         \
  X(zeDriverGetExtensionProperties)                                                                                \
  X(zeDeviceGet)                                                                                                   \
  X(zeDeviceGetProperties)                                                                                         \
  X(zeDeviceGetComputeProperties)                                                                                  \
  X(zeDeviceGetModuleProperties)                                                                                   \
  X(zeDeviceGetMemoryProperties)                                                                                   \
  X(zeDeviceGetCommandQueueGroupProperties)                                                                        \
  X(zeDeviceCanAccessPeer)                                                                                         \
  X(zeContextCreate)                                                                                               \
  X(zeContextDestroy)                                                                                              \
  X(zeCommandListCreateImmediate)                                                                                  \
  X(zeCommandListDestroy)                                                                                          \
  X(zeCommandListAppendBarrier)                                                                                    \
  X(zeCommandListAppendMemoryCopy)                                                                                 \
  X(zeCommandListAppendMemoryFill)                                                                                 \
  X(zeCommandListAppendLaunchKernel)                                                                               \
  X(zeCommandListAppendWriteGlobalTimestamp)                                                                       \
  X(zeEventPoolCreate)                                                                                             \
  X(zeEventPoolDestroy)                                                                                            \
  X(zeEventCreate)                                                                                                 \
  X(zeEventDestroy)                                                                                                \
  X(zeEventHostSynchronize)                                                                                        \
  X(zeEventQueryStatus)                                                                                            \
  X(zeEventHostReset)                                                                                              \
  X(zeMemAllocDevice)                                                                                              \
  X(zeMemAllocHost)                                                                                                \
  X(zeMemFree)                                                                                                     \
  X(zeModuleCreate)                                                                                                \
  X(zeModuleDestroy)                                                                                               \
  X(zeModuleBuildLogGetString)                                                                                     \
  X(zeModuleBuildLogDestroy)                                                                                       \
  X(zeKernelCreate)                                                                                                \
  X(zeKernelDestroy)                                                                                               \
  X(zeKernelSetGroupSize)                                                                                          \
  X(zeKernelSuggestGroupSize)                                                                                      \
  X(zeKernelSetArgumentValue)

// Entry points of extensions: nullptr where the loader predates them.
#define HAL_ZE_OPTIONAL_ENTRY_POINTS(X) X(zeDevicePciGetPropertiesExt)

struct LevelZeroApi {
#define HAL_ZE_MEMBER(name) decltype(&::name) name = nullptr;
  HAL_ZE_REQUIRED_ENTRY_POINTS(HAL_ZE_MEMBER)
  HAL_ZE_OPTIONAL_ENTRY_POINTS(HAL_ZE_MEMBER)
#undef HAL_ZE_MEMBER
};

// The library named by TORCH_HAL_LEVEL_ZERO_LIBRARY, else libze_loader.so.1, loaded once and kept. nullptr,
// with the reason in *why (the library tried, dlerror's text, what to install), where it is absent or is not
// a Level Zero loader.
const LevelZeroApi* level_zero_api(std::string* why);

// "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)"; the hexadecimal code alone for codes it does not know.
std::string ze_result_name(ze_result_t code);

// The hal status of a failed call: device and host memory exhaustion are kept apart, the rest is the
// driver's error.
hal_status_t hal_status_of(ze_result_t code);

// Sets *error to "<call> failed: <code's name>" and returns hal_status_of(code).
hal_status_t failed(const std::string& call, ze_result_t code, std::string* error);

}  // namespace hal_level_zero
