#include "spirv_modules.h"

namespace hal_spirv {

#if defined(HAL_HAS_SPIRV_MODULES)
extern const unsigned char elementwise_spv[];
extern const size_t elementwise_spv_size;
#endif

SpirvModule module_bytes(Module module) {
#if defined(HAL_HAS_SPIRV_MODULES)
  switch (module) {
    case Module::Elementwise: return {elementwise_spv, elementwise_spv_size};
  }
#else
  (void)module;
#endif
  return {};
}

const char* module_name(Module module) {
  switch (module) {
    case Module::Elementwise: return "elementwise";
  }
  return "unknown";
}

const char* spirv_missing_reason() {
  return "this build of torch_hal has no SPIR-V kernels (clang-15 and llvm-spirv-15 were not found when it was "
         "built; Debian: apt-get install clang-15 llvm-spirv-15 spirv-tools, then rebuild torch_hal)";
}

}  // namespace hal_spirv
