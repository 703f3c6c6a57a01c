// A libamdhip64.so for the AMD adapter's test build on NVIDIA GPUs: each HIP entry point the adapter
// resolves (hip_api.cpp) forwards to the CUDA runtime, as HIP's own NVIDIA platform (hip/nvidia_detail)
// does in headers. Modules and launches go to the driver (cuModuleLoadData, cuLaunchKernel), reached
// through the runtime's entry-point query so that this library links no libcuda of its own. HIP's error
// codes, flags and memcpy kinds have CUDA's values for everything used here; device attributes are mapped.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>

namespace {

using hipError_t = int;

hipError_t status(cudaError_t error) { return static_cast<hipError_t>(error); }

// hipDeviceAttribute_t -> cudaDeviceAttr, for the attributes the adapter asks for.
bool cuda_attribute(int hip_attribute, cudaDeviceAttr* out) {
  switch (hip_attribute) {
    case 5: *out = cudaDevAttrClockRate; return true;
    case 23: *out = cudaDevAttrComputeCapabilityMajor; return true;
    case 56: *out = cudaDevAttrMaxThreadsPerBlock; return true;
    case 59: *out = cudaDevAttrGlobalMemoryBusWidth; return true;
    case 60: *out = cudaDevAttrMemoryClockRate; return true;
    case 61: *out = cudaDevAttrComputeCapabilityMinor; return true;
    case 63: *out = cudaDevAttrMultiProcessorCount; return true;
    case 67: *out = cudaDevAttrPciBusId; return true;
    case 68: *out = cudaDevAttrPciDeviceId; return true;
    case 69: *out = cudaDevAttrPciDomainId; return true;
    case 74: *out = cudaDevAttrMaxSharedMemoryPerBlock; return true;
    case 87: *out = cudaDevAttrWarpSize; return true;
    default: return false;
  }
}

template <class Fn>
Fn driver_entry(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    return nullptr;
  }
  return reinterpret_cast<Fn>(p);
}

struct Driver {
  CUresult (*module_load_data)(CUmodule*, const void*);
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*);
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            CUstream, void**, void**);
};

const Driver& driver() {
  static const Driver d{driver_entry<decltype(Driver::module_load_data)>("cuModuleLoadData"),
                        driver_entry<decltype(Driver::module_get_function)>("cuModuleGetFunction"),
                        driver_entry<decltype(Driver::launch_kernel)>("cuLaunchKernel")};
  return d;
}

// A driver call needs the device's context current on the calling thread; the runtime makes it current on
// a thread that has none when asked to set the device it reports as current.
template <class Call>
hipError_t with_context(Call call) {
  CUresult result = call();
  if (result == CUDA_ERROR_INVALID_CONTEXT) {
    int device = 0;
    if (cudaGetDevice(&device) == cudaSuccess && cudaSetDevice(device) == cudaSuccess) result = call();
  }
  return static_cast<hipError_t>(result);
}

}  // namespace

extern "C" {

#define HAL_HIP_EXPORT __attribute__((visibility("default")))

HAL_HIP_EXPORT hipError_t hipInit(unsigned /*flags*/) {
  int count = 0;
  return status(cudaGetDeviceCount(&count));
}
HAL_HIP_EXPORT hipError_t hipGetDeviceCount(int* count) { return status(cudaGetDeviceCount(count)); }
HAL_HIP_EXPORT hipError_t hipGetDevice(int* device) { return status(cudaGetDevice(device)); }
HAL_HIP_EXPORT hipError_t hipSetDevice(int device) { return status(cudaSetDevice(device)); }
HAL_HIP_EXPORT hipError_t hipDeviceGetAttribute(int* value, int attribute, int device) {
  cudaDeviceAttr cuda{};
  if (!cuda_attribute(attribute, &cuda)) return status(cudaErrorInvalidValue);
  return status(cudaDeviceGetAttribute(value, cuda, device));
}
HAL_HIP_EXPORT hipError_t hipDeviceGetName(char* name, int length, int device) {
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) return status(e);
  if (length <= 0) return status(cudaErrorInvalidValue);
  std::strncpy(name, prop.name, static_cast<size_t>(length) - 1);
  name[length - 1] = '\0';
  return 0;
}
HAL_HIP_EXPORT hipError_t hipDeviceTotalMem(size_t* bytes, int device) {
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) return status(e);
  *bytes = prop.totalGlobalMem;
  return 0;
}
HAL_HIP_EXPORT hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total) {
  return status(cudaMemGetInfo(free_bytes, total));
}
HAL_HIP_EXPORT hipError_t hipDeviceSynchronize() { return status(cudaDeviceSynchronize()); }
HAL_HIP_EXPORT const char* hipGetErrorName(hipError_t error) {
  return cudaGetErrorName(static_cast<cudaError_t>(error));
}
HAL_HIP_EXPORT const char* hipGetErrorString(hipError_t error) {
  return cudaGetErrorString(static_cast<cudaError_t>(error));
}
HAL_HIP_EXPORT hipError_t hipMalloc(void** ptr, size_t bytes) {
  const cudaError_t e = cudaMalloc(ptr, bytes);
  if (e != cudaSuccess) (void)cudaGetLastError();  // HIP's allocation failures are not sticky either
  return status(e);
}
HAL_HIP_EXPORT hipError_t hipFree(void* ptr) { return status(cudaFree(ptr)); }
HAL_HIP_EXPORT hipError_t hipHostMalloc(void** ptr, size_t bytes, unsigned /*flags: hipHostMallocDefault*/) {
  const cudaError_t e = cudaHostAlloc(ptr, bytes, cudaHostAllocDefault);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return status(e);
}
HAL_HIP_EXPORT hipError_t hipHostFree(void* ptr) { return status(cudaFreeHost(ptr)); }
HAL_HIP_EXPORT hipError_t hipMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream) {
  return status(cudaMemsetAsync(ptr, value, bytes, stream));
}
HAL_HIP_EXPORT hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, int kind, cudaStream_t stream) {
  return status(cudaMemcpyAsync(dst, src, bytes, static_cast<cudaMemcpyKind>(kind), stream));
}
HAL_HIP_EXPORT hipError_t hipMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                                             cudaStream_t stream) {
  return status(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, stream));
}
// hipIpcMemHandle_t and cudaIpcMemHandle_t are both 64 opaque bytes passed by value; the lazy-peer-access
// flag is 1 in both.
static_assert(sizeof(cudaIpcMemHandle_t) == 64, "HIP's IPC handle is 64 bytes");
HAL_HIP_EXPORT hipError_t hipIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* ptr) {
  return status(cudaIpcGetMemHandle(handle, ptr));
}
HAL_HIP_EXPORT hipError_t hipIpcOpenMemHandle(void** ptr, cudaIpcMemHandle_t handle, unsigned flags) {
  return status(cudaIpcOpenMemHandle(ptr, handle, flags));
}
HAL_HIP_EXPORT hipError_t hipIpcCloseMemHandle(void* ptr) { return status(cudaIpcCloseMemHandle(ptr)); }
HAL_HIP_EXPORT hipError_t hipStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  return status(cudaStreamCreateWithFlags(stream, flags));
}
HAL_HIP_EXPORT hipError_t hipStreamDestroy(cudaStream_t stream) { return status(cudaStreamDestroy(stream)); }
HAL_HIP_EXPORT hipError_t hipStreamSynchronize(cudaStream_t stream) { return status(cudaStreamSynchronize(stream)); }
HAL_HIP_EXPORT hipError_t hipStreamQuery(cudaStream_t stream) { return status(cudaStreamQuery(stream)); }
HAL_HIP_EXPORT hipError_t hipStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
  return status(cudaStreamWaitEvent(stream, event, flags));
}
HAL_HIP_EXPORT hipError_t hipEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
  return status(cudaEventCreateWithFlags(event, flags));
}
HAL_HIP_EXPORT hipError_t hipEventDestroy(cudaEvent_t event) { return status(cudaEventDestroy(event)); }
HAL_HIP_EXPORT hipError_t hipEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return status(cudaEventRecord(event, stream));
}
HAL_HIP_EXPORT hipError_t hipEventQuery(cudaEvent_t event) { return status(cudaEventQuery(event)); }
HAL_HIP_EXPORT hipError_t hipEventSynchronize(cudaEvent_t event) { return status(cudaEventSynchronize(event)); }
HAL_HIP_EXPORT hipError_t hipEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return status(cudaEventElapsedTime(ms, start, end));
}
HAL_HIP_EXPORT hipError_t hipModuleLoadData(CUmodule* module, const void* image) {
  if (!driver().module_load_data) return status(cudaErrorNotSupported);
  return with_context([&] { return driver().module_load_data(module, image); });
}
HAL_HIP_EXPORT hipError_t hipModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  if (!driver().module_get_function) return status(cudaErrorNotSupported);
  return with_context([&] { return driver().module_get_function(function, module, name); });
}
HAL_HIP_EXPORT hipError_t hipModuleLaunchKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                                                unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
                                                cudaStream_t stream, void** params, void** extra) {
  if (!driver().launch_kernel) return status(cudaErrorNotSupported);
  return with_context([&] {
    return driver().launch_kernel(function, gx, gy, gz, bx, by, bz, shared_bytes, stream, params, extra);
  });
}

}  // extern "C"
