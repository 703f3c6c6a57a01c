// The kernel library's device code inside this adapter. hipcc compiles each kernel source into an object
// whose constructor registers a clang offload bundle (one code object per GPU architecture) and the device
// name of each kernel's host stub. The HIP runtime normally receives those registrations; this adapter
// loads the runtime with dlopen, so it receives them itself (hip_registration.cpp) and loads the matching
// code object per device with hipModuleLoadData when a kernel first runs there.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "hip_api.h"

namespace hal_amd {

// Records a registered offload bundle; returns the handle the registering object keeps.
void** register_bundle(const void* bundle);
// Records that the host stub `stub` launches the kernel `device_name` of the bundle `handle`.
void register_kernel(void** handle, const void* stub, const char* device_name);

// The GPU architectures ("gfx90a", ...) every registered bundle holds a code object for, sorted.
std::vector<std::string> embedded_architectures();

// The architecture of `device` among the embedded ones: the one whose code object the runtime loads there;
// empty, with the reason in *why, when none does.
std::string device_architecture(const HipApi& api, int device, std::string* why);

// The loaded function of the kernel whose host stub is `stub`, on `device` (current); nullptr with the
// reason in *why.
hipFunction_t kernel_function(const HipApi& api, const void* stub, int device, std::string* why);

}  // namespace hal_amd
