// torch.autocast("hal"): the same op lists as CUDA's autocast, so mixed precision on hal casts exactly
// where it would on a GPU (matrix products down to the autocast dtype; softmax, sums, norms and losses in fp32).
#include <ATen/autocast_mode.h>
#include <torch/library.h>

namespace torch_hal {
namespace {

// The op-list macros spell signatures with ATen's unqualified names, and which names they use differs
// between PyTorch releases (2.11 adds DimnameList), so the whole namespace is brought in, here only.
using namespace at;  // NOLINT(google-build-using-namespace)

#define HAL_AUTOCAST_LOWER_PRECISION(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define HAL_AUTOCAST_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define HAL_AUTOCAST_FP32_SET_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define HAL_AUTOCAST_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
#define HAL_AUTOCAST_FP32_APPEND_DTYPE(FN, NAME, SIG, REDISPATCH_SIG, POLICY) \
  KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE(FN, NAME, SIG, REDISPATCH_SIG, POLICY)

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
  AT_FORALL_LOWER_PRECISION_FP(HAL_AUTOCAST_LOWER_PRECISION)
  AT_FORALL_FP32(HAL_AUTOCAST_FP32)
  AT_FORALL_FP32_SET_OPT_DTYPE(HAL_AUTOCAST_FP32_SET_OPT_DTYPE)
  AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(HAL_AUTOCAST_FP32_APPEND_DTYPE)
  AT_FORALL_PROMOTE(HAL_AUTOCAST_PROMOTE)
}

// Every other op passes through autocast untouched, as for CUDA.
TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

}  // namespace
}  // namespace torch_hal
