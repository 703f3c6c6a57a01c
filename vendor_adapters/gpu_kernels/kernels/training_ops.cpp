// Routes ops 1210..1299 to the file that owns them (training_ops.h). As in family_defaults.cpp, each file's
// launcher has a weak default here that answers NOT_SUPPORTED, overridden by the file's own definition.
#include "kernels/training_ops.h"

#include <string>

namespace hal_gpu {

#define HAL_GPU_WEAK_LAUNCHER(fn, what)                                                                   \
  __attribute__((weak)) hal_status_t fn(const OpCall& call) {                                            \
    return fail(HAL_STATUS_NOT_SUPPORTED,                                                                \
                "this adapter was built without its " what " kernels (op " + std::to_string(call.op) + ")"); \
  }
HAL_GPU_WEAK_LAUNCHER(launch_triangular, "tril/triu")
HAL_GPU_WEAK_LAUNCHER(launch_scan, "cumsum/cumprod")
HAL_GPU_WEAK_LAUNCHER(launch_multi_tensor_norm, "multi-tensor norm")
HAL_GPU_WEAK_LAUNCHER(launch_amp_update_scale, "AMP scale update")
HAL_GPU_WEAK_LAUNCHER(launch_sort, "sort/topk")
HAL_GPU_WEAK_LAUNCHER(launch_attention, "fused attention")
HAL_GPU_WEAK_LAUNCHER(launch_attention_softmax, "attention softmax")
#undef HAL_GPU_WEAK_LAUNCHER

hal_status_t launch_training_ops(const OpCall& call) {
  switch (call.op) {
    case HAL_OP_TRIL:
    case HAL_OP_TRIU:
      return launch_triangular(call);
    case HAL_OP_CUMSUM:
    case HAL_OP_CUMPROD:
      return launch_scan(call);
    case HAL_OP_FOREACH_NORM:
    case HAL_OP_AMP_UNSCALE:
      return launch_multi_tensor_norm(call);
    case HAL_OP_AMP_UPDATE_SCALE:
      return launch_amp_update_scale(call);
    case HAL_OP_SORT:
    case HAL_OP_TOPK:
      return launch_sort(call);
    case HAL_OP_ATTENTION:
    case HAL_OP_ATTENTION_BACKWARD:
      return launch_attention(call);
    case HAL_OP_ATTENTION_SOFTMAX:
      return launch_attention_softmax(call);
    default:
      return fail(HAL_STATUS_NOT_SUPPORTED, "no kernel for op " + std::to_string(call.op));
  }
}

}  // namespace hal_gpu
