// The kernel library's SPIR-V modules, compiled from kernels/*.cl at build time (CMakeLists.txt: C++ for OpenCL
// with clang-15, llvm-spirv-15, validated by spirv-val) and embedded in every adapter that runs SPIR-V (OpenCL,
// Level Zero). Each runtime builds a module for a device from these bytes.
#pragma once

#include <cstddef>

namespace hal_spirv {

enum class Module : int {
  Elementwise = 0,  // kernels/elementwise.cl: elementwise ops (dense, strided, typed), fill, arange
  Gemm = 1,         // kernels/gemm.cl
  Reduce = 2,       // kernels/reduce.cl: sum, mean, prod, amax, amin, vector norms, all, any
  Softmax = 3,      // kernels/softmax.cl: softmax, log_softmax and their backward
  Loss = 4,         // kernels/loss.cl: nll_loss and its backward
  Random = 5,       // kernels/random.cl: uniform and normal
  Convolution = 6,  // kernels/convolution.cl: convolution and its two backward ops (gpu_kernels' kernel body)
  LayerNorm = 7,    // kernels/layer_norm.cl: layer norm and its backward (gpu_kernels' kernel bodies)
  Indexing = 8,     // kernels/indexing.cl: index_select (gpu_kernels' indexing rules and row selection)
  Embedding = 9,    // kernels/embedding.cl: embedding backward (gpu_kernels' kernel body)
  Triangular = 10,  // kernels/triangular.cl: tril and triu (gpu_kernels' rule)
};
constexpr int kModuleCount = 11;

struct SpirvModule {
  const unsigned char* bytes = nullptr;
  size_t size = 0;  // 0: the adapter was built without the SPIR-V toolchain
};

SpirvModule module_bytes(Module module);

// For messages: "elementwise".
const char* module_name(Module module);

// Why the modules are absent (for messages), where they are.
const char* spirv_missing_reason();

}  // namespace hal_spirv
