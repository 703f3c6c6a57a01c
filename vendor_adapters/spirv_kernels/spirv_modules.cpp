#include "spirv_modules.h"

namespace hal_spirv {

#if defined(HAL_HAS_SPIRV_MODULES)
// CMakeLists.txt's hal_spirv_module() embeds kernels/<name>.cl's module as <name>_spv.
#define HAL_SPIRV_EMBEDDED(name)           \
  extern const unsigned char name##_spv[]; \
  extern const size_t name##_spv_size;
HAL_SPIRV_EMBEDDED(elementwise)
HAL_SPIRV_EMBEDDED(gemm)
HAL_SPIRV_EMBEDDED(reduce)
HAL_SPIRV_EMBEDDED(softmax)
HAL_SPIRV_EMBEDDED(loss)
HAL_SPIRV_EMBEDDED(random)
HAL_SPIRV_EMBEDDED(convolution)
HAL_SPIRV_EMBEDDED(fused_optimizer)
HAL_SPIRV_EMBEDDED(pooling)
HAL_SPIRV_EMBEDDED(batch_norm)
HAL_SPIRV_EMBEDDED(layer_norm)
HAL_SPIRV_EMBEDDED(indexing)
HAL_SPIRV_EMBEDDED(embedding)
HAL_SPIRV_EMBEDDED(triangular)
HAL_SPIRV_EMBEDDED(dft)
HAL_SPIRV_EMBEDDED(scan)
HAL_SPIRV_EMBEDDED(search)
HAL_SPIRV_EMBEDDED(float64)
#undef HAL_SPIRV_EMBEDDED
#endif

SpirvModule module_bytes(Module module) {
#if defined(HAL_HAS_SPIRV_MODULES)
  switch (module) {
    case Module::Elementwise: return {elementwise_spv, elementwise_spv_size};
    case Module::Gemm: return {gemm_spv, gemm_spv_size};
    case Module::Reduce: return {reduce_spv, reduce_spv_size};
    case Module::Softmax: return {softmax_spv, softmax_spv_size};
    case Module::Loss: return {loss_spv, loss_spv_size};
    case Module::Random: return {random_spv, random_spv_size};
    case Module::Convolution: return {convolution_spv, convolution_spv_size};
    case Module::FusedOptimizer: return {fused_optimizer_spv, fused_optimizer_spv_size};
    case Module::Pooling: return {pooling_spv, pooling_spv_size};
    case Module::BatchNorm: return {batch_norm_spv, batch_norm_spv_size};
    case Module::LayerNorm: return {layer_norm_spv, layer_norm_spv_size};
    case Module::Indexing: return {indexing_spv, indexing_spv_size};
    case Module::Embedding: return {embedding_spv, embedding_spv_size};
    case Module::Triangular: return {triangular_spv, triangular_spv_size};
    case Module::Dft: return {dft_spv, dft_spv_size};
    case Module::Scan: return {scan_spv, scan_spv_size};
    case Module::Search: return {search_spv, search_spv_size};
    case Module::Float64: return {float64_spv, float64_spv_size};
  }
#else
  (void)module;
#endif
  return {};
}

const char* module_name(Module module) {
  switch (module) {
    case Module::Elementwise: return "elementwise";
    case Module::Gemm: return "gemm";
    case Module::Reduce: return "reduce";
    case Module::Softmax: return "softmax";
    case Module::Loss: return "loss";
    case Module::Random: return "random";
    case Module::Convolution: return "convolution";
    case Module::FusedOptimizer: return "fused_optimizer";
    case Module::Pooling: return "pooling";
    case Module::BatchNorm: return "batch_norm";
    case Module::LayerNorm: return "layer_norm";
    case Module::Indexing: return "indexing";
    case Module::Embedding: return "embedding";
    case Module::Triangular: return "triangular";
    case Module::Dft: return "dft";
    case Module::Scan: return "scan";
    case Module::Search: return "search";
    case Module::Float64: return "float64";
  }
  return "unknown";
}

const char* spirv_missing_reason() {
  return "this build of torch_hal has no SPIR-V kernels (clang-15 and llvm-spirv-15 were not found when it was "
         "built; Debian: apt-get install clang-15 llvm-spirv-15 spirv-tools, then rebuild torch_hal)";
}

}  // namespace hal_spirv
