// The kernel library's SPIR-V modules, compiled from kernels/*.cl at build time (CMakeLists.txt: C++ for OpenCL
// with clang-15, llvm-spirv-15, validated by spirv-val) and embedded in every adapter that runs SPIR-V (OpenCL,
// Level Zero). Each runtime builds a module for a device from these bytes.
#pragma once

#include <cstddef>

namespace hal_spirv {

enum class Module : int {
  Elementwise = 0,     // kernels/elementwise.cl: elementwise ops (dense, strided, typed), fill, arange
  Gemm = 1,            // kernels/gemm.cl
  Reduce = 2,          // kernels/reduce.cl: sum, mean, prod, amax, amin, vector norms, all, any
  Softmax = 3,         // kernels/softmax.cl: softmax, log_softmax and their backward
  Loss = 4,            // kernels/loss.cl: nll_loss and its backward
  Random = 5,          // kernels/random.cl: uniform, normal, dropout and its backward
  Convolution = 6,     // kernels/convolution.cl: convolution and its two backward ops (gpu_kernels' kernel body)
  Pooling = 7,         // kernels/pooling.cl: max, average and adaptive pooling, forward and backward (pooling.cuh)
  BatchNorm = 8,       // kernels/batch_norm.cl: batch norm and its backward (batch_norm.cuh)
  FusedOptimizer = 9,  // kernels/fused_optimizer.cl: fused Adam(W) and SGD (gpu_kernels' optimizer_math.cuh)
  LayerNorm = 10,      // kernels/layer_norm.cl: layer norm and its backward (gpu_kernels' kernel bodies)
  Indexing = 11,       // kernels/indexing.cl: index_select (gpu_kernels' indexing rules and row selection)
  Embedding = 12,      // kernels/embedding.cl: embedding backward (gpu_kernels' kernel body)
  Triangular = 13,     // kernels/triangular.cl: tril and triu (gpu_kernels' rule)
  Dft = 14,            // kernels/dft.cl: the discrete Fourier transform (gpu_kernels' dft.cuh)
  Scan = 15,           // kernels/scan.cl: cumsum, cumprod, logcumsumexp, cummax, cummin (gpu_kernels' scan_rules.cuh)
  Search = 16,         // kernels/search.cl: searchsorted (gpu_kernels' search_rules.cuh)
  Float64 = 17,        // kernels/float64.cl: elementwise ops, arange and reductions computed in float64 (fp64 devices)
};
constexpr int kModuleCount = 18;

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
