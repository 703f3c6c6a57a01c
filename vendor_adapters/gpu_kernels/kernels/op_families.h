// Which kernel family owns an op id: the same routing in every adapter that compiles the library in.
#pragma once

#include "kernels/op_call.h"

namespace hal_gpu {

using Family = hal_status_t (*)(const OpCall&);

// The family that owns an op id (adapter.h numbers ops by family, appending within each range), or
// nullptr for ids no family owns.
inline Family family_of(hal_op_t op) {
  if (op == HAL_OP_FILL || op == HAL_OP_COPY || op == HAL_OP_ARANGE) return launch_elementwise;
  if ((op >= HAL_OP_ADD && op <= HAL_OP_DIV) || op == HAL_OP_RELU) return launch_elementwise;
  if (op >= 100 && op < 300) return launch_elementwise;  // unary, binary, backward, ternary
  if (op >= 300 && op < 400) return launch_reduction;
  if (op >= HAL_OP_SOFTMAX && op <= HAL_OP_LOG_SOFTMAX_BACKWARD) return launch_softmax;
  if (op == HAL_OP_LAYER_NORM || op == HAL_OP_LAYER_NORM_BACKWARD) return launch_layer_norm;
  if (op == HAL_OP_NLL_LOSS || op == HAL_OP_NLL_LOSS_BACKWARD) return launch_loss;
  if (op == HAL_OP_EMBEDDING_BACKWARD) return launch_embedding;
  if (op >= 500 && op < 600) return launch_indexing;
  if (op >= 600 && op < 700) return launch_random;
  if (op == HAL_OP_MATMUL || op == HAL_OP_GEMM) return launch_gemm;
  if (op >= 700 && op < 800) return launch_multi_tensor;
  if (op >= 900 && op < 1000) return launch_norm_pool;  // batch/group/RMS norm, pooling, upsampling
  if (op == HAL_OP_ALL || op == HAL_OP_ANY || op == HAL_OP_VECTOR_NORM) return launch_reduction;
  if (op >= 1210 && op < 1300) return launch_training_ops;  // tril/triu, scans, multi-tensor norm, AMP
  return nullptr;
}

}  // namespace hal_gpu
