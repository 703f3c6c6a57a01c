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
  HAL_HOST_KERNEL(mm, "mm");
  HAL_HOST_KERNEL(addmm, "addmm");
  HAL_HOST_KERNEL(_log_softmax, "_log_softmax");
  HAL_HOST_KERNEL(_log_softmax_backward_data, "_log_softmax_backward_data");
}

}  // namespace
}  // namespace torch_hal
