#include "native/kernel_table.h"

#include <mutex>

namespace torch_hal::native {
namespace {

std::mutex& table_mutex() {
  static std::mutex mutex;
  return mutex;
}
// Function-local: registrations run during static initialization, in any order of translation units.
std::vector<KernelRecord>& table() {
  static std::vector<KernelRecord> records;
  return records;
}

}  // namespace

const char* route_name(Route route) {
  switch (route) {
    case Route::AdapterFirst: return "adapter_first";
    case Route::Foreach: return "foreach";
    case Route::Composite: return "composite";
    case Route::Runtime: return "runtime";
    case Route::CpuKernel: return "cpu_kernel";
  }
  return "unknown";
}

void record_kernel(std::string name, Route route, const LaunchedOps& ops) {
  std::lock_guard<std::mutex> lock(table_mutex());
  table().push_back(KernelRecord{std::move(name), route, std::vector<hal_op_t>(ops.ids, ops.ids + ops.count)});
}

std::vector<KernelRecord> recorded_kernels() {
  std::lock_guard<std::mutex> lock(table_mutex());
  return table();
}

std::string hal_op_name(hal_op_t op) {
  // One case per id of adapter.h (a repeated id would not compile); append new ids here as they are added.
#define HAL_OP_CASE(id) \
  case id:              \
    return #id;
  switch (op) {
    HAL_OP_CASE(HAL_OP_FILL) HAL_OP_CASE(HAL_OP_COPY) HAL_OP_CASE(HAL_OP_ARANGE) HAL_OP_CASE(HAL_OP_ADD)
    HAL_OP_CASE(HAL_OP_SUB) HAL_OP_CASE(HAL_OP_MUL) HAL_OP_CASE(HAL_OP_DIV) HAL_OP_CASE(HAL_OP_RELU)
    HAL_OP_CASE(HAL_OP_MATMUL) HAL_OP_CASE(HAL_OP_GEMM) HAL_OP_CASE(HAL_OP_NEG) HAL_OP_CASE(HAL_OP_ABS)
    HAL_OP_CASE(HAL_OP_EXP) HAL_OP_CASE(HAL_OP_LOG) HAL_OP_CASE(HAL_OP_SQRT) HAL_OP_CASE(HAL_OP_RSQRT)
    HAL_OP_CASE(HAL_OP_SIN) HAL_OP_CASE(HAL_OP_COS) HAL_OP_CASE(HAL_OP_TANH) HAL_OP_CASE(HAL_OP_SIGMOID)
    HAL_OP_CASE(HAL_OP_GELU) HAL_OP_CASE(HAL_OP_SILU) HAL_OP_CASE(HAL_OP_RECIPROCAL) HAL_OP_CASE(HAL_OP_FLOOR)
    HAL_OP_CASE(HAL_OP_CEIL) HAL_OP_CASE(HAL_OP_ROUND) HAL_OP_CASE(HAL_OP_TRUNC) HAL_OP_CASE(HAL_OP_SIGN)
    HAL_OP_CASE(HAL_OP_LOG1P) HAL_OP_CASE(HAL_OP_EXPM1) HAL_OP_CASE(HAL_OP_ERF) HAL_OP_CASE(HAL_OP_LOGICAL_NOT)
    HAL_OP_CASE(HAL_OP_BITWISE_NOT) HAL_OP_CASE(HAL_OP_ISNAN) HAL_OP_CASE(HAL_OP_LOG2) HAL_OP_CASE(HAL_OP_EXP2)
    HAL_OP_CASE(HAL_OP_LEAKY_RELU) HAL_OP_CASE(HAL_OP_ISINF) HAL_OP_CASE(HAL_OP_SQUARE) HAL_OP_CASE(HAL_OP_POW)
    HAL_OP_CASE(HAL_OP_MAXIMUM) HAL_OP_CASE(HAL_OP_MINIMUM) HAL_OP_CASE(HAL_OP_REMAINDER) HAL_OP_CASE(HAL_OP_FMOD)
    HAL_OP_CASE(HAL_OP_ATAN2) HAL_OP_CASE(HAL_OP_EQ) HAL_OP_CASE(HAL_OP_NE) HAL_OP_CASE(HAL_OP_LT)
    HAL_OP_CASE(HAL_OP_LE) HAL_OP_CASE(HAL_OP_GT) HAL_OP_CASE(HAL_OP_GE) HAL_OP_CASE(HAL_OP_LOGICAL_AND)
    HAL_OP_CASE(HAL_OP_LOGICAL_OR) HAL_OP_CASE(HAL_OP_LOGICAL_XOR) HAL_OP_CASE(HAL_OP_BITWISE_AND)
    HAL_OP_CASE(HAL_OP_BITWISE_OR) HAL_OP_CASE(HAL_OP_BITWISE_XOR) HAL_OP_CASE(HAL_OP_CLAMP_MIN)
    HAL_OP_CASE(HAL_OP_CLAMP_MAX) HAL_OP_CASE(HAL_OP_THRESHOLD_BACKWARD) HAL_OP_CASE(HAL_OP_GELU_BACKWARD)
    HAL_OP_CASE(HAL_OP_SIGMOID_BACKWARD) HAL_OP_CASE(HAL_OP_TANH_BACKWARD) HAL_OP_CASE(HAL_OP_SILU_BACKWARD)
    HAL_OP_CASE(HAL_OP_LEAKY_RELU_BACKWARD) HAL_OP_CASE(HAL_OP_WHERE) HAL_OP_CASE(HAL_OP_CLAMP)
    HAL_OP_CASE(HAL_OP_ADDCMUL) HAL_OP_CASE(HAL_OP_ADDCDIV) HAL_OP_CASE(HAL_OP_LERP) HAL_OP_CASE(HAL_OP_SUM)
    HAL_OP_CASE(HAL_OP_MEAN) HAL_OP_CASE(HAL_OP_PROD) HAL_OP_CASE(HAL_OP_AMAX) HAL_OP_CASE(HAL_OP_AMIN)
    HAL_OP_CASE(HAL_OP_ARGMAX) HAL_OP_CASE(HAL_OP_ARGMIN) HAL_OP_CASE(HAL_OP_VAR) HAL_OP_CASE(HAL_OP_STD)
    HAL_OP_CASE(HAL_OP_SOFTMAX) HAL_OP_CASE(HAL_OP_LOG_SOFTMAX) HAL_OP_CASE(HAL_OP_SOFTMAX_BACKWARD)
    HAL_OP_CASE(HAL_OP_LOG_SOFTMAX_BACKWARD) HAL_OP_CASE(HAL_OP_LAYER_NORM) HAL_OP_CASE(HAL_OP_LAYER_NORM_BACKWARD)
    HAL_OP_CASE(HAL_OP_NLL_LOSS) HAL_OP_CASE(HAL_OP_NLL_LOSS_BACKWARD) HAL_OP_CASE(HAL_OP_EMBEDDING_BACKWARD)
    HAL_OP_CASE(HAL_OP_INDEX_SELECT) HAL_OP_CASE(HAL_OP_GATHER) HAL_OP_CASE(HAL_OP_SCATTER)
    HAL_OP_CASE(HAL_OP_INDEX_PUT) HAL_OP_CASE(HAL_OP_UNIFORM) HAL_OP_CASE(HAL_OP_NORMAL)
    HAL_OP_CASE(HAL_OP_BERNOULLI) HAL_OP_CASE(HAL_OP_RANDPERM) HAL_OP_CASE(HAL_OP_FOREACH)
    default: break;
  }
#undef HAL_OP_CASE
  return "HAL_OP_" + std::to_string(op);
}

}  // namespace torch_hal::native
