#include "hip_api.h"

#include <dlfcn.h>

#include <memory>

#include "dl_symbols.h"

namespace hal_amd {
namespace {

// The runtime stays loaded for the life of the process once found: kernels and memory of it may be in use
// until exit, so the handle is never closed.
struct LoadedRuntime {
  HipApi api{};
  bool ok = false;
  std::string why;
};

LoadedRuntime load() {
  LoadedRuntime out;
  void* library = nullptr;
  std::string tried;
  for (const char* name : {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"}) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library) break;
    tried += tried.empty() ? name : std::string(", ") + name;
  }
  if (!library) {
    out.why = "no ROCm runtime (" + tried + " not found): install ROCm (the HIP runtime, libamdhip64) to use AMD GPUs";
    return out;
  }
  HipApi& a = out.api;
  std::string missing;
  resolve(library, "hipInit", a.Init, missing);
  resolve(library, "hipGetDeviceCount", a.GetDeviceCount, missing);
  resolve(library, "hipGetDevice", a.GetDevice, missing);
  resolve(library, "hipSetDevice", a.SetDevice, missing);
  resolve(library, "hipDeviceGetAttribute", a.DeviceGetAttribute, missing);
  resolve(library, "hipDeviceGetName", a.DeviceGetName, missing);
  resolve(library, "hipDeviceTotalMem", a.DeviceTotalMem, missing);
  resolve(library, "hipMemGetInfo", a.MemGetInfo, missing);
  resolve(library, "hipDeviceSynchronize", a.DeviceSynchronize, missing);
  resolve(library, "hipGetErrorName", a.GetErrorName, missing);
  resolve(library, "hipGetErrorString", a.GetErrorString, missing);
  resolve(library, "hipMalloc", a.Malloc, missing);
  resolve(library, "hipFree", a.Free, missing);
  resolve(library, "hipHostMalloc", a.HostMalloc, missing);
  resolve(library, "hipHostFree", a.HostFree, missing);
  resolve(library, "hipMemsetAsync", a.MemsetAsync, missing);
  resolve(library, "hipMemcpyAsync", a.MemcpyAsync, missing);
  resolve(library, "hipMemcpyPeerAsync", a.MemcpyPeerAsync, missing);
  resolve(library, "hipIpcGetMemHandle", a.IpcGetMemHandle, missing);
  resolve(library, "hipIpcOpenMemHandle", a.IpcOpenMemHandle, missing);
  resolve(library, "hipIpcCloseMemHandle", a.IpcCloseMemHandle, missing);
  resolve(library, "hipStreamCreateWithFlags", a.StreamCreateWithFlags, missing);
  resolve(library, "hipStreamDestroy", a.StreamDestroy, missing);
  resolve(library, "hipStreamSynchronize", a.StreamSynchronize, missing);
  resolve(library, "hipStreamQuery", a.StreamQuery, missing);
  resolve(library, "hipStreamWaitEvent", a.StreamWaitEvent, missing);
  resolve(library, "hipEventCreateWithFlags", a.EventCreateWithFlags, missing);
  resolve(library, "hipEventDestroy", a.EventDestroy, missing);
  resolve(library, "hipEventRecord", a.EventRecord, missing);
  resolve(library, "hipEventQuery", a.EventQuery, missing);
  resolve(library, "hipEventSynchronize", a.EventSynchronize, missing);
  resolve(library, "hipEventElapsedTime", a.EventElapsedTime, missing);
  resolve(library, "hipModuleLoadData", a.ModuleLoadData, missing);
  resolve(library, "hipModuleGetFunction", a.ModuleGetFunction, missing);
  resolve(library, "hipModuleLaunchKernel", a.ModuleLaunchKernel, missing);
  if (!missing.empty()) {
    out.why = "the HIP runtime found lacks " + missing + ": install ROCm 5.2 or newer";
    return out;
  }
  out.ok = true;
  return out;
}

const LoadedRuntime& runtime() {
  static const LoadedRuntime loaded = load();
  return loaded;
}

}  // namespace

const HipApi* hip_api(std::string* why) {
  const LoadedRuntime& r = runtime();
  if (!r.ok && why) *why = r.why;
  return r.ok ? &r.api : nullptr;
}

std::string hip_error_text(hipError_t error) {
  const HipApi* api = hip_api(nullptr);
  if (!api) return "HIP error " + std::to_string(error);
  const char* name = api->GetErrorName(error);
  const char* text = api->GetErrorString(error);
  const std::string n = name ? name : "hipError " + std::to_string(error);
  return (text && n != text) ? n + ": " + text : n;  // HIP 5 describes some errors by their name alone
}

}  // namespace hal_amd
