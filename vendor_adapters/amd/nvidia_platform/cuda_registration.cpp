// The AMD adapter built for HIP's NVIDIA platform: nvcc compiles the kernel library instead of hipcc, so
// the objects' constructors register nvcc's fat binaries, through the CUDA runtime's registration entry
// points. As hip_registration.cpp does for hipcc's offload bundles, they are defined here and hand each
// binary and kernel name to code_objects.cpp, which loads them with hipModuleLoadData through whichever
// libamdhip64 the adapter loaded. The kernels are launched by hipModuleLaunchKernel, never through nvcc's
// host stubs, so the stubs' own launch entry points only need to exist, and fail if ever reached.
#include <cuda_runtime.h>

#include "code_objects.h"

namespace {

// The wrapper nvcc emits around each fat binary (__fatDeviceText).
struct FatbinWrapper {
  int magic;
  int version;
  const void* data;  // the fat binary itself: what cuModuleLoadData takes
  void* unused;
};

}  // namespace

extern "C" {

void** __cudaRegisterFatBinary(void* wrapper) {
  return hal_amd::register_bundle(static_cast<const FatbinWrapper*>(wrapper)->data);
}

void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

void __cudaUnregisterFatBinary(void** /*handle*/) {
  // Modules stay loaded until the process ends: kernels may still be queued when objects unregister at exit.
}

void __cudaRegisterFunction(void** handle, const char* host_stub, char* device_function, const char* /*name*/,
                            int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/, dim3* /*block_dim*/,
                            dim3* /*grid_dim*/, int* /*warp_size*/) {
  hal_amd::register_kernel(handle, host_stub, device_function);  // the mangled name, as the module has it
}

void __cudaRegisterVar(void** /*handle*/, char* /*host_var*/, char* /*device_address*/, const char* /*name*/,
                       int /*ext*/, size_t /*size*/, int /*constant*/, int /*global*/) {}

cudaError_t __cudaPopCallConfiguration(dim3*, dim3*, size_t*, void*) { return cudaErrorNotSupported; }

cudaError_t __cudaGetKernel(cudaKernel_t*, const void*) { return cudaErrorNotSupported; }

cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t) {
  return cudaErrorNotSupported;
}

}  // extern "C"
