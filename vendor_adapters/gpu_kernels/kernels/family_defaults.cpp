// Weak default definitions of the kernel families' entry points (kernels/op_call.h), so that the adapter
// links and runs whichever families exist yet. Each answers NOT_SUPPORTED, which sends the op to the
// core's fallback. A family's real definition in its own file (elementwise.cu, reduce.cu, ...) is a strong
// symbol: the linker takes it instead of the one here, and no file needs to change when a family arrives.
#include <string>

#include "op_call.h"

namespace hal_gpu {
namespace {

hal_status_t family_missing(const OpCall& call, const char* family) {
  return fail(HAL_STATUS_NOT_SUPPORTED, ("this adapter was built without its " + std::string(family) +
                                         " kernels (op " + std::to_string(call.op) + ")")
                                            .c_str());
}

}  // namespace

#define HAL_GPU_WEAK_FAMILY(fn, family) \
  __attribute__((weak)) hal_status_t fn(const OpCall& call) { return family_missing(call, family); }

HAL_GPU_WEAK_FAMILY(launch_elementwise, "elementwise")
HAL_GPU_WEAK_FAMILY(launch_reduction, "reduction")
HAL_GPU_WEAK_FAMILY(launch_softmax, "softmax")
HAL_GPU_WEAK_FAMILY(launch_layer_norm, "layer_norm")
HAL_GPU_WEAK_FAMILY(launch_loss, "loss")
HAL_GPU_WEAK_FAMILY(launch_embedding, "embedding")
HAL_GPU_WEAK_FAMILY(launch_indexing, "indexing")
HAL_GPU_WEAK_FAMILY(launch_random, "random")
HAL_GPU_WEAK_FAMILY(launch_gemm, "GEMM")
HAL_GPU_WEAK_FAMILY(launch_multi_tensor, "multi-tensor")
HAL_GPU_WEAK_FAMILY(launch_norm_pool, "normalization/pooling/upsampling")
HAL_GPU_WEAK_FAMILY(launch_training_ops, "training-step (tril/triu, cumsum, norms, AMP)")

#undef HAL_GPU_WEAK_FAMILY

}  // namespace hal_gpu
