// Routes ops 900..999 to the file that owns them (norm_pool.h). As in family_defaults.cpp, each file's
// launcher has a weak default here that answers NOT_SUPPORTED, overridden by the file's own definition.
#include "kernels/norm_pool.h"

#include <string>

namespace hal_gpu {

#define HAL_GPU_WEAK_LAUNCHER(fn, what)                                                                   \
  __attribute__((weak)) hal_status_t fn(const OpCall& call) {                                            \
    return fail(HAL_STATUS_NOT_SUPPORTED,                                                                \
                "this adapter was built without its " what " kernels (op " + std::to_string(call.op) + ")"); \
  }
HAL_GPU_WEAK_LAUNCHER(launch_batch_norm, "batch norm")
HAL_GPU_WEAK_LAUNCHER(launch_group_norm, "group/RMS norm")
HAL_GPU_WEAK_LAUNCHER(launch_pooling, "pooling")
HAL_GPU_WEAK_LAUNCHER(launch_upsample, "upsampling")
#undef HAL_GPU_WEAK_LAUNCHER

hal_status_t launch_norm_pool(const OpCall& call) {
  switch (call.op) {
    case HAL_OP_BATCH_NORM:
    case HAL_OP_BATCH_NORM_BACKWARD:
      return launch_batch_norm(call);
    case HAL_OP_GROUP_NORM:
    case HAL_OP_GROUP_NORM_BACKWARD:
    case HAL_OP_RMS_NORM:
    case HAL_OP_RMS_NORM_BACKWARD:
      return launch_group_norm(call);
    case HAL_OP_MAX_POOL2D:
    case HAL_OP_MAX_POOL2D_BACKWARD:
    case HAL_OP_AVG_POOL2D:
    case HAL_OP_AVG_POOL2D_BACKWARD:
    case HAL_OP_ADAPTIVE_AVG_POOL2D:
    case HAL_OP_ADAPTIVE_AVG_POOL2D_BACKWARD:
    case HAL_OP_ADAPTIVE_MAX_POOL2D:
    case HAL_OP_ADAPTIVE_MAX_POOL2D_BACKWARD:
      return launch_pooling(call);
    case HAL_OP_UPSAMPLE_NEAREST2D:
    case HAL_OP_UPSAMPLE_NEAREST2D_BACKWARD:
    case HAL_OP_UPSAMPLE_BILINEAR2D:
    case HAL_OP_UPSAMPLE_BILINEAR2D_BACKWARD:
      return launch_upsample(call);
    default:
      return fail(HAL_STATUS_NOT_SUPPORTED, "no kernel for op " + std::to_string(call.op));
  }
}

}  // namespace hal_gpu
