#include "op_dispatch.h"

#include <string>

#include "adapter_state.h"
#include "cuda_status.h"
#include "current_device.h"
#include "kernels/op_call.h"

namespace hal_nvidia {
namespace {

using Family = hal_status_t (*)(const OpCall&);

// The family that owns an op id (adapter.h numbers ops by family, appending within each range), or
// nullptr for ids no family owns.
Family family_of(hal_op_t op) {
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
  return nullptr;
}

hal_status_t no_kernel(hal_op_t op) {
  return fail(HAL_STATUS_NOT_SUPPORTED, "the NVIDIA adapter has no kernel for op " + std::to_string(op));
}

}  // namespace

// A coarse answer by op id: the family decides dtypes and layouts when launch_op asks it, and answers
// NOT_SUPPORTED (with no side effect) for what it does not handle, so the core still falls back.
hal_status_t op_supported(int32_t /*device*/, hal_op_t op, const hal_tensor_t* /*tensors*/, int32_t /*num_tensors*/) {
  return family_of(op) ? HAL_STATUS_SUCCESS : no_kernel(op);
}

hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars) {
  const Family family = family_of(op);
  if (!family) return no_kernel(op);
  OpCall call{op, device, nullptr, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars};
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  if (hal_status_t s = resolve_stream(device, stream, &call.stream); s != HAL_STATUS_SUCCESS) return s;
  return family(call);
}

}  // namespace hal_nvidia
