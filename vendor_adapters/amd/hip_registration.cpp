// The registration entry points that hipcc-compiled objects call from their constructors, defined here
// instead of in libamdhip64 (which this adapter loads with dlopen, so it cannot link against it). They
// record the offload bundles and kernel names for code_objects.cpp. The kernel library never launches
// through the host stubs (it launches through launch_detail::launch below), so the stubs' own launch
// calls only need to exist, and fail if ever reached.
#include "code_objects.h"
#include "kernels/adapter_services.h"
#include "kernels/kernel_launch.h"

namespace {

// The wrapper hipcc emits around each offload bundle (__hip_fatbin_wrapper).
struct FatbinWrapper {
  unsigned magic;  // "HIPF"
  unsigned version;
  const void* binary;
  void* unused;
};

}  // namespace

extern "C" {

void** __hipRegisterFatBinary(const void* wrapper) {
  return hal_amd::register_bundle(static_cast<const FatbinWrapper*>(wrapper)->binary);
}

void __hipRegisterFunction(void** handle, const void* host_stub, char* /*device_function*/, const char* device_name,
                           unsigned /*thread_limit*/, void* /*tid*/, void* /*bid*/, void* /*block_dim*/,
                           void* /*grid_dim*/, int* /*warp_size*/) {
  hal_amd::register_kernel(handle, host_stub, device_name);
}

void __hipUnregisterFatBinary(void** /*handle*/) {
  // Modules stay loaded until the process ends: kernels may still be queued when objects unregister at exit.
}

hipError_t __hipPopCallConfiguration(dim3*, dim3*, size_t*, hipStream_t*) { return hipErrorNotSupported; }

hipError_t hipLaunchKernel(const void*, dim3, dim3, void**, size_t, hipStream_t) { return hipErrorNotSupported; }

}  // extern "C"
