#include "hal/op_names.h"

#include <algorithm>
#include <iterator>

namespace hal {
namespace {

struct OpName {
  hal_op_t op;
  const char* name;
};

// Sorted by id (adapter.h appends ids in increasing order), for a binary search.
constexpr OpName kOpNames[] = {
    {HAL_OP_FILL, "fill"},
    {HAL_OP_COPY, "copy"},
    {HAL_OP_ARANGE, "arange"},
    {HAL_OP_ADD, "add"},
    {HAL_OP_SUB, "sub"},
    {HAL_OP_MUL, "mul"},
    {HAL_OP_DIV, "div"},
    {HAL_OP_RELU, "relu"},
    {HAL_OP_MATMUL, "matmul"},
    {HAL_OP_GEMM, "gemm"},
    {HAL_OP_NEG, "neg"},
    {HAL_OP_ABS, "abs"},
    {HAL_OP_EXP, "exp"},
    {HAL_OP_LOG, "log"},
    {HAL_OP_SQRT, "sqrt"},
    {HAL_OP_RSQRT, "rsqrt"},
    {HAL_OP_SIN, "sin"},
    {HAL_OP_COS, "cos"},
    {HAL_OP_TANH, "tanh"},
    {HAL_OP_SIGMOID, "sigmoid"},
    {HAL_OP_GELU, "gelu"},
    {HAL_OP_SILU, "silu"},
    {HAL_OP_RECIPROCAL, "reciprocal"},
    {HAL_OP_FLOOR, "floor"},
    {HAL_OP_CEIL, "ceil"},
    {HAL_OP_ROUND, "round"},
    {HAL_OP_TRUNC, "trunc"},
    {HAL_OP_SIGN, "sign"},
    {HAL_OP_LOG1P, "log1p"},
    {HAL_OP_EXPM1, "expm1"},
    {HAL_OP_ERF, "erf"},
    {HAL_OP_LOGICAL_NOT, "logical_not"},
    {HAL_OP_BITWISE_NOT, "bitwise_not"},
    {HAL_OP_ISNAN, "isnan"},
    {HAL_OP_LOG2, "log2"},
    {HAL_OP_EXP2, "exp2"},
    {HAL_OP_LEAKY_RELU, "leaky_relu"},
    {HAL_OP_ISINF, "isinf"},
    {HAL_OP_SQUARE, "square"},
    {HAL_OP_POW, "pow"},
    {HAL_OP_MAXIMUM, "maximum"},
    {HAL_OP_MINIMUM, "minimum"},
    {HAL_OP_REMAINDER, "remainder"},
    {HAL_OP_FMOD, "fmod"},
    {HAL_OP_ATAN2, "atan2"},
    {HAL_OP_EQ, "eq"},
    {HAL_OP_NE, "ne"},
    {HAL_OP_LT, "lt"},
    {HAL_OP_LE, "le"},
    {HAL_OP_GT, "gt"},
    {HAL_OP_GE, "ge"},
    {HAL_OP_LOGICAL_AND, "logical_and"},
    {HAL_OP_LOGICAL_OR, "logical_or"},
    {HAL_OP_LOGICAL_XOR, "logical_xor"},
    {HAL_OP_BITWISE_AND, "bitwise_and"},
    {HAL_OP_BITWISE_OR, "bitwise_or"},
    {HAL_OP_BITWISE_XOR, "bitwise_xor"},
    {HAL_OP_CLAMP_MIN, "clamp_min"},
    {HAL_OP_CLAMP_MAX, "clamp_max"},
    {HAL_OP_THRESHOLD_BACKWARD, "threshold_backward"},
    {HAL_OP_GELU_BACKWARD, "gelu_backward"},
    {HAL_OP_SIGMOID_BACKWARD, "sigmoid_backward"},
    {HAL_OP_TANH_BACKWARD, "tanh_backward"},
    {HAL_OP_SILU_BACKWARD, "silu_backward"},
    {HAL_OP_LEAKY_RELU_BACKWARD, "leaky_relu_backward"},
    {HAL_OP_WHERE, "where"},
    {HAL_OP_CLAMP, "clamp"},
    {HAL_OP_ADDCMUL, "addcmul"},
    {HAL_OP_ADDCDIV, "addcdiv"},
    {HAL_OP_LERP, "lerp"},
    {HAL_OP_SUM, "sum"},
    {HAL_OP_MEAN, "mean"},
    {HAL_OP_PROD, "prod"},
    {HAL_OP_AMAX, "amax"},
    {HAL_OP_AMIN, "amin"},
    {HAL_OP_ARGMAX, "argmax"},
    {HAL_OP_ARGMIN, "argmin"},
    {HAL_OP_VAR, "var"},
    {HAL_OP_STD, "std"},
    {HAL_OP_SOFTMAX, "softmax"},
    {HAL_OP_LOG_SOFTMAX, "log_softmax"},
    {HAL_OP_SOFTMAX_BACKWARD, "softmax_backward"},
    {HAL_OP_LOG_SOFTMAX_BACKWARD, "log_softmax_backward"},
    {HAL_OP_LAYER_NORM, "layer_norm"},
    {HAL_OP_LAYER_NORM_BACKWARD, "layer_norm_backward"},
    {HAL_OP_NLL_LOSS, "nll_loss"},
    {HAL_OP_NLL_LOSS_BACKWARD, "nll_loss_backward"},
    {HAL_OP_EMBEDDING_BACKWARD, "embedding_backward"},
    {HAL_OP_INDEX_SELECT, "index_select"},
    {HAL_OP_GATHER, "gather"},
    {HAL_OP_SCATTER, "scatter"},
    {HAL_OP_INDEX_PUT, "index_put"},
    {HAL_OP_UNIFORM, "uniform"},
    {HAL_OP_NORMAL, "normal"},
    {HAL_OP_BERNOULLI, "bernoulli"},
    {HAL_OP_RANDPERM, "randperm"},
    {HAL_OP_FOREACH, "foreach"},};

}  // namespace

std::string op_name(hal_op_t op) {
  const auto* end = std::end(kOpNames);
  const auto* it = std::lower_bound(std::begin(kOpNames), end, op,
                                    [](const OpName& entry, hal_op_t id) { return entry.op < id; });
  if (it != end && it->op == op) return it->name;
  return "op " + std::to_string(op);
}

}  // namespace hal
