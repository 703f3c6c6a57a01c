// Unboxed host-path kernels (host_kernel.h) for the hot ops that have no native kernel registration of
// their own. An op registered in native/ must not be listed here: its native kernel falls back to the same
// host path by itself.
#include <torch/library.h>

#include "host_kernel.h"

namespace torch_hal {
namespace {

#define HAL_HOST_KERNEL(op, overload_name) \
  m.impl(overload_name, TORCH_FN(HostKernel<at::_ops::op>::call))

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_HOST_KERNEL(neg, "neg");
  HAL_HOST_KERNEL(threshold_backward, "threshold_backward");
  HAL_HOST_KERNEL(sum, "sum");
  HAL_HOST_KERNEL(sum_dim_IntList, "sum.dim_IntList");
  HAL_HOST_KERNEL(mean_dim, "mean.dim");
  HAL_HOST_KERNEL(gelu, "gelu");
  HAL_HOST_KERNEL(gelu_backward, "gelu_backward");
  HAL_HOST_KERNEL(tanh, "tanh");
  HAL_HOST_KERNEL(sigmoid, "sigmoid");
  HAL_HOST_KERNEL(exp, "exp");
  HAL_HOST_KERNEL(sqrt, "sqrt");
  HAL_HOST_KERNEL(rsqrt, "rsqrt");
  HAL_HOST_KERNEL(pow_Tensor_Scalar, "pow.Tensor_Scalar");
  HAL_HOST_KERNEL(where_self, "where.self");
}

}  // namespace
}  // namespace torch_hal
