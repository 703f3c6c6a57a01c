#include "spirv_modules.h"

namespace hal_opencl {

#if defined(HAL_OPENCL_HAS_SPIRV)
extern const unsigned char elementwise_spv[];
extern const size_t elementwise_spv_size;
SpirvModule elementwise_module() { return {elementwise_spv, elementwise_spv_size}; }
#else
SpirvModule elementwise_module() { return {}; }
#endif

const char* spirv_missing_reason() {
  return "this build of the OpenCL adapter has no SPIR-V kernels (clang-15 and llvm-spirv-15 were not found when it "
         "was built; Debian: apt-get install clang-15 llvm-spirv-15 spirv-tools, then rebuild torch_hal)";
}

}  // namespace hal_opencl
