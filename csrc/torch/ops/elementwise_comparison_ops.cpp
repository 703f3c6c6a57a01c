// eq, ne, lt, le, gt, ge with Tensor and Scalar operands: ATen's comparison iterator (common dtype, bool
// output, or the dtype of self for the in-place forms).
#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

#define HAL_NATIVE_COMPARISON(m, op, OP)                                                                \
  HAL_NATIVE(m, op##_Tensor, #op ".Tensor", launches(OP), binary<OP, Form::Comparison>);                \
  HAL_NATIVE(m, op##__Tensor, #op "_.Tensor", launches(OP), binary_<OP, Form::Comparison>);             \
  HAL_NATIVE(m, op##_Tensor_out, #op ".Tensor_out", launches(OP), binary_out<OP, Form::Comparison>);    \
  HAL_NATIVE(m, op##_Scalar, #op ".Scalar", launches(OP), binary_scalar<OP, Form::Comparison>);         \
  HAL_NATIVE(m, op##__Scalar, #op "_.Scalar", launches(OP), binary_scalar_<OP, Form::Comparison>);      \
  HAL_NATIVE(m, op##_Scalar_out, #op ".Scalar_out", launches(OP), binary_scalar_out<OP, Form::Comparison>)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE_COMPARISON(m, eq, HAL_OP_EQ);
  HAL_NATIVE_COMPARISON(m, ne, HAL_OP_NE);
  HAL_NATIVE_COMPARISON(m, lt, HAL_OP_LT);
  HAL_NATIVE_COMPARISON(m, le, HAL_OP_LE);
  HAL_NATIVE_COMPARISON(m, gt, HAL_OP_GT);
  HAL_NATIVE_COMPARISON(m, ge, HAL_OP_GE);
}

}  // namespace
}  // namespace torch_hal::native
