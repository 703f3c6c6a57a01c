#include "kernels/gemm_prologue.h"

#include <string>

#include "kernels/scale_into.h"

namespace hal_gpu {

hal_status_t plan_or_finish_gemm(const OpCall& call, const char* vendor, GemmPlan* plan, bool* done) {
  *done = true;
  std::string why;
  if (hal_status_t s = plan_gemm(call.op, call.inputs, call.num_inputs, call.outputs, call.num_outputs, call.scalars,
                                 call.num_scalars, plan, &why);
      s != HAL_STATUS_SUCCESS) {
    return fail(s, std::string(vendor) + (call.op == HAL_OP_GEMM ? " GEMM " : " MATMUL ") + why);
  }
  if (plan->empty) return HAL_STATUS_SUCCESS;
  if (plan->k == 0) {
    if (plan->c_is_out && plan->beta == 1.0) return HAL_STATUS_SUCCESS;
    return scale_into(call.outputs[0], plan->c, plan->beta, call.device, call.stream);
  }
  *done = false;
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_gpu
