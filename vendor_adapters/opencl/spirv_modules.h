// The kernel library's SPIR-V modules embedded in the OpenCL adapter at build time (CMakeLists.txt compiles
// kernels/*.cl with clang-15 and llvm-spirv-15, validates them with spirv-val, and embeds the bytes).
#pragma once

#include <cstddef>

namespace hal_opencl {

struct SpirvModule {
  const unsigned char* bytes = nullptr;
  size_t size = 0;  // 0: the adapter was built without the SPIR-V toolchain
};

// kernels/elementwise.cl: unary_f32, binary_f32, ternary_f32.
SpirvModule elementwise_module();

// Why a module is absent (for messages), where it is.
const char* spirv_missing_reason();

}  // namespace hal_opencl
