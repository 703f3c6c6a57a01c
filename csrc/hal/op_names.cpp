#include "hal/op_names.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <vector>

namespace hal {
namespace {

struct OpName {
  hal_op_t op;
  const char* id_name;  // "HAL_OP_ADD"
};

// The one list of the operator ids of adapter.h; append new ids here as they are added there (a repeated
// entry is caught by the duplicate check below, a missing one shows up as "HAL_OP_<number>").
#define NAMED(id) OpName{id, #id}
constexpr OpName kOpNames[] = {
    NAMED(HAL_OP_FILL), NAMED(HAL_OP_COPY), NAMED(HAL_OP_ARANGE),
    NAMED(HAL_OP_ADD), NAMED(HAL_OP_SUB), NAMED(HAL_OP_MUL),
    NAMED(HAL_OP_DIV), NAMED(HAL_OP_RELU), NAMED(HAL_OP_MATMUL),
    NAMED(HAL_OP_GEMM), NAMED(HAL_OP_NEG), NAMED(HAL_OP_ABS),
    NAMED(HAL_OP_EXP), NAMED(HAL_OP_LOG), NAMED(HAL_OP_SQRT),
    NAMED(HAL_OP_RSQRT), NAMED(HAL_OP_SIN), NAMED(HAL_OP_COS),
    NAMED(HAL_OP_TANH), NAMED(HAL_OP_SIGMOID), NAMED(HAL_OP_GELU),
    NAMED(HAL_OP_SILU), NAMED(HAL_OP_RECIPROCAL), NAMED(HAL_OP_FLOOR),
    NAMED(HAL_OP_CEIL), NAMED(HAL_OP_ROUND), NAMED(HAL_OP_TRUNC),
    NAMED(HAL_OP_SIGN), NAMED(HAL_OP_LOG1P), NAMED(HAL_OP_EXPM1),
    NAMED(HAL_OP_ERF), NAMED(HAL_OP_LOGICAL_NOT), NAMED(HAL_OP_BITWISE_NOT),
    NAMED(HAL_OP_ISNAN), NAMED(HAL_OP_LOG2), NAMED(HAL_OP_EXP2),
    NAMED(HAL_OP_LEAKY_RELU), NAMED(HAL_OP_ISINF), NAMED(HAL_OP_SQUARE),
    NAMED(HAL_OP_POW), NAMED(HAL_OP_MAXIMUM), NAMED(HAL_OP_MINIMUM),
    NAMED(HAL_OP_REMAINDER), NAMED(HAL_OP_FMOD), NAMED(HAL_OP_ATAN2),
    NAMED(HAL_OP_EQ), NAMED(HAL_OP_NE), NAMED(HAL_OP_LT),
    NAMED(HAL_OP_LE), NAMED(HAL_OP_GT), NAMED(HAL_OP_GE),
    NAMED(HAL_OP_LOGICAL_AND), NAMED(HAL_OP_LOGICAL_OR), NAMED(HAL_OP_LOGICAL_XOR),
    NAMED(HAL_OP_BITWISE_AND), NAMED(HAL_OP_BITWISE_OR), NAMED(HAL_OP_BITWISE_XOR),
    NAMED(HAL_OP_CLAMP_MIN), NAMED(HAL_OP_CLAMP_MAX), NAMED(HAL_OP_THRESHOLD_BACKWARD),
    NAMED(HAL_OP_GELU_BACKWARD), NAMED(HAL_OP_SIGMOID_BACKWARD), NAMED(HAL_OP_TANH_BACKWARD),
    NAMED(HAL_OP_SILU_BACKWARD), NAMED(HAL_OP_LEAKY_RELU_BACKWARD), NAMED(HAL_OP_WHERE),
    NAMED(HAL_OP_CLAMP), NAMED(HAL_OP_ADDCMUL), NAMED(HAL_OP_ADDCDIV),
    NAMED(HAL_OP_LERP), NAMED(HAL_OP_SUM), NAMED(HAL_OP_MEAN),
    NAMED(HAL_OP_PROD), NAMED(HAL_OP_AMAX), NAMED(HAL_OP_AMIN),
    NAMED(HAL_OP_ARGMAX), NAMED(HAL_OP_ARGMIN), NAMED(HAL_OP_VAR),
    NAMED(HAL_OP_STD), NAMED(HAL_OP_SOFTMAX), NAMED(HAL_OP_LOG_SOFTMAX),
    NAMED(HAL_OP_SOFTMAX_BACKWARD), NAMED(HAL_OP_LOG_SOFTMAX_BACKWARD), NAMED(HAL_OP_LAYER_NORM),
    NAMED(HAL_OP_LAYER_NORM_BACKWARD), NAMED(HAL_OP_NLL_LOSS), NAMED(HAL_OP_NLL_LOSS_BACKWARD),
    NAMED(HAL_OP_EMBEDDING_BACKWARD), NAMED(HAL_OP_INDEX_SELECT), NAMED(HAL_OP_GATHER),
    NAMED(HAL_OP_SCATTER), NAMED(HAL_OP_INDEX_PUT), NAMED(HAL_OP_UNIFORM),
    NAMED(HAL_OP_NORMAL), NAMED(HAL_OP_BERNOULLI), NAMED(HAL_OP_RANDPERM),
    NAMED(HAL_OP_FOREACH), NAMED(HAL_OP_BATCH_NORM), NAMED(HAL_OP_BATCH_NORM_BACKWARD),
    NAMED(HAL_OP_GROUP_NORM), NAMED(HAL_OP_GROUP_NORM_BACKWARD), NAMED(HAL_OP_RMS_NORM),
    NAMED(HAL_OP_RMS_NORM_BACKWARD), NAMED(HAL_OP_MAX_POOL2D), NAMED(HAL_OP_MAX_POOL2D_BACKWARD),
    NAMED(HAL_OP_AVG_POOL2D), NAMED(HAL_OP_AVG_POOL2D_BACKWARD), NAMED(HAL_OP_ADAPTIVE_AVG_POOL2D),
    NAMED(HAL_OP_ADAPTIVE_AVG_POOL2D_BACKWARD), NAMED(HAL_OP_ADAPTIVE_MAX_POOL2D), NAMED(HAL_OP_ADAPTIVE_MAX_POOL2D_BACKWARD),
    NAMED(HAL_OP_UPSAMPLE_NEAREST2D), NAMED(HAL_OP_UPSAMPLE_NEAREST2D_BACKWARD), NAMED(HAL_OP_UPSAMPLE_BILINEAR2D),
    NAMED(HAL_OP_UPSAMPLE_BILINEAR2D_BACKWARD),
    NAMED(HAL_OP_CONVOLUTION), NAMED(HAL_OP_CONVOLUTION_BACKWARD_INPUT), NAMED(HAL_OP_CONVOLUTION_BACKWARD_WEIGHT),
    NAMED(HAL_OP_ALL), NAMED(HAL_OP_ANY), NAMED(HAL_OP_VECTOR_NORM), NAMED(HAL_OP_TRIL), NAMED(HAL_OP_TRIU),
    NAMED(HAL_OP_CUMSUM), NAMED(HAL_OP_CUMPROD), NAMED(HAL_OP_FOREACH_NORM), NAMED(HAL_OP_AMP_UNSCALE),
    NAMED(HAL_OP_AMP_UPDATE_SCALE), NAMED(HAL_OP_SORT), NAMED(HAL_OP_TOPK),
    NAMED(HAL_OP_ATTENTION), NAMED(HAL_OP_ATTENTION_BACKWARD), NAMED(HAL_OP_ATTENTION_SOFTMAX),
};
#undef NAMED

// kOpNames sorted by id, for a binary search (the list above stays in adapter.h's reading order).
const std::vector<OpName>& sorted_names() {
  static const std::vector<OpName> sorted = [] {
    std::vector<OpName> names(std::begin(kOpNames), std::end(kOpNames));
    std::sort(names.begin(), names.end(), [](const OpName& a, const OpName& b) { return a.op < b.op; });
    return names;
  }();
  return sorted;
}

const char* find_id_name(hal_op_t op) {
  const auto& names = sorted_names();
  auto it = std::lower_bound(names.begin(), names.end(), op,
                             [](const OpName& entry, hal_op_t id) { return entry.op < id; });
  return it != names.end() && it->op == op ? it->id_name : nullptr;
}

}  // namespace

std::string op_id_name(hal_op_t op) {
  const char* name = find_id_name(op);
  return name ? std::string(name) : "HAL_OP_" + std::to_string(op);
}

std::string op_name(hal_op_t op) {
  const char* name = find_id_name(op);
  if (!name) return "op " + std::to_string(op);
  std::string lower(name + sizeof("HAL_OP_") - 1);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

}  // namespace hal
