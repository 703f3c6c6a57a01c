// The hal kernels of torch._foreach_* ops that optimizers (AdamW's step, SGD with momentum) and
// zero_grad call: one native launch over every tensor where the fast route applies (foreach_launch.h),
// else ATen's per-tensor slow kernel, exactly what ran before these kernels existed (and what still
// runs on devices without native kernels, such as the host reference device).
//
// List and scalar-list lengths are checked first, with ATen's own checks (ForeachUtils.h), so both routes
// raise the same errors. Autograd and version counting of the lists happen above this dispatch key, as for
// CUDA (foreach_in_place bumps the versions that the per-tensor ops of the slow path would).
#include <ATen/native/ForeachUtils.h>
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_lerp_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <ATen/ops/_foreach_zero_native.h>
#include <ATen/ops/result_type_native.h>
#include <torch/library.h>

#include "dispatch/kernel_table.h"
#include "ops/foreach_launch.h"

namespace torch_hal::native {
namespace {

using at::native::check_foreach_api_restrictions;
using ScalarList = at::ArrayRef<c10::Scalar>;

// The own scalar of an op whose overload has none: alpha 1 for add and sub, true division for div.
std::optional<GroupScalar> implied_own(hal_op_t op) {
  static const c10::Scalar kOne(int64_t{1}), kTrueDivision(int64_t{0});
  if (op == HAL_OP_ADD || op == HAL_OP_SUB) return GroupScalar(kOne);
  if (op == HAL_OP_DIV) return GroupScalar(kTrueDivision);
  return std::nullopt;
}

// The length checks of a list with a scalar (Scalar: none; ScalarList: one per tensor).
void check_lists(at::TensorList self, const c10::Scalar&) { check_foreach_api_restrictions(self); }
void check_lists(at::TensorList self, ScalarList scalars) { check_foreach_api_restrictions(self, scalars); }
void check_lists(at::TensorList self, at::TensorList a, at::TensorList b, const c10::Scalar&) {
  check_foreach_api_restrictions(self, a, b);
}
void check_lists(at::TensorList self, at::TensorList a, at::TensorList b, ScalarList scalars) {
  check_foreach_api_restrictions(self, a, b, scalars);
}

// self op scalar (.Scalar, .ScalarList): add, sub, mul, div.
template <hal_op_t OP, auto Slow, class S>
std::vector<at::Tensor> with_scalar(at::TensorList self, S scalar) {
  check_lists(self, scalar);
  if (auto out = foreach_functional({OP, self, {self, scalar}, implied_own(OP)})) return std::move(*out);
  return Slow(self, scalar);
}
template <hal_op_t OP, auto Slow, class S>
void with_scalar_(at::TensorList self, S scalar) {
  check_lists(self, scalar);
  if (!foreach_in_place({OP, self, {self, scalar}, implied_own(OP)})) Slow(self, scalar);
}

// self op other (.List): mul, div; add and sub with alpha.
template <hal_op_t OP, auto Slow>
std::vector<at::Tensor> with_list(at::TensorList self, at::TensorList other) {
  check_foreach_api_restrictions(self, other);
  if (auto out = foreach_functional({OP, self, {self, other}, implied_own(OP)})) return std::move(*out);
  return Slow(self, other);
}
template <hal_op_t OP, auto Slow>
void with_list_(at::TensorList self, at::TensorList other) {
  check_foreach_api_restrictions(self, other);
  if (!foreach_in_place({OP, self, {self, other}, implied_own(OP)})) Slow(self, other);
}
template <hal_op_t OP, auto Slow>
std::vector<at::Tensor> with_list_alpha(at::TensorList self, at::TensorList other, const c10::Scalar& alpha) {
  check_foreach_api_restrictions(self, other);
  if (auto out = foreach_functional({OP, self, {self, other}, GroupScalar(alpha)})) return std::move(*out);
  return Slow(self, other, alpha);
}
template <hal_op_t OP, auto Slow>
void with_list_alpha_(at::TensorList self, at::TensorList other, const c10::Scalar& alpha) {
  check_foreach_api_restrictions(self, other);
  if (!foreach_in_place({OP, self, {self, other}, GroupScalar(alpha)})) Slow(self, other, alpha);
}

// self op other, where other is one 0-dim tensor for every tensor of the list (.Tensor): mul, div; add with
// alpha. The device reads other's value (clip_grad_norm_ multiplies every gradient by a device tensor).

// Whether some result's dtype is not its tensor's: a 0-dim tensor of the list promotes with `other` as two
// 0-dim tensors do (float16 times a float32 0-dim tensor is float32), an integer tensor with a floating
// one. The one launch writes each result in its tensor's dtype, so such lists take ATen's per-tensor route.
bool promotes(at::TensorList self, const at::Tensor& other) {
  for (const at::Tensor& t : self) {
    if (at::native::result_type(t, other) != t.scalar_type()) return true;  // no dispatch: nothing profiled
  }
  return false;
}

template <hal_op_t OP, auto Slow>
std::vector<at::Tensor> with_tensor(at::TensorList self, const at::Tensor& other) {
  check_foreach_api_restrictions(self);
  if (promotes(self, other)) return Slow(self, other);
  if (auto out = foreach_functional({OP, self, {self, ForeachOperand::every_group(other)}, implied_own(OP)})) {
    return std::move(*out);
  }
  return Slow(self, other);
}
template <hal_op_t OP, auto Slow>
void with_tensor_(at::TensorList self, const at::Tensor& other) {
  check_foreach_api_restrictions(self);
  if (!foreach_in_place({OP, self, {self, ForeachOperand::every_group(other)}, implied_own(OP)})) Slow(self, other);
}
std::vector<at::Tensor> add_tensor(at::TensorList self, const at::Tensor& other, const c10::Scalar& alpha) {
  check_foreach_api_restrictions(self);
  if (promotes(self, other)) return at::native::foreach_tensor_add_tensor_kernel_slow(self, other, alpha);
  if (auto out = foreach_functional({HAL_OP_ADD, self, {self, ForeachOperand::every_group(other)}, GroupScalar(alpha)})) {
    return std::move(*out);
  }
  return at::native::foreach_tensor_add_tensor_kernel_slow(self, other, alpha);
}
void add_tensor_(at::TensorList self, const at::Tensor& other, const c10::Scalar& alpha) {
  check_foreach_api_restrictions(self);
  if (!foreach_in_place({HAL_OP_ADD, self, {self, ForeachOperand::every_group(other)}, GroupScalar(alpha)})) {
    at::native::foreach_tensor_add_tensor_kernel_slow_(self, other, alpha);
  }
}

// self + value * (t1 op t2) (.Scalar, .ScalarList): addcmul, addcdiv.
template <hal_op_t OP, auto Slow, class S>
std::vector<at::Tensor> pointwise(at::TensorList self, at::TensorList t1, at::TensorList t2, S value) {
  check_lists(self, t1, t2, value);
  if (auto out = foreach_functional({OP, self, {self, t1, t2}, GroupScalar(value)})) return std::move(*out);
  return Slow(self, t1, t2, value);
}
template <hal_op_t OP, auto Slow, class S>
void pointwise_(at::TensorList self, at::TensorList t1, at::TensorList t2, S value) {
  check_lists(self, t1, t2, value);
  if (!foreach_in_place({OP, self, {self, t1, t2}, GroupScalar(value)})) Slow(self, t1, t2, value);
}

// lerp(self, end, weight): a weight for every tensor (.Scalar) or a list of weight tensors (.List).
std::vector<at::Tensor> lerp_scalar(at::TensorList self, at::TensorList end, const c10::Scalar& weight) {
  check_foreach_api_restrictions(self, end);
  if (auto out = foreach_functional({HAL_OP_LERP, self, {self, end, weight}, std::nullopt})) return std::move(*out);
  return at::native::foreach_tensor_lerp_list_kernel_slow(self, end, weight);
}
void lerp_scalar_(at::TensorList self, at::TensorList end, const c10::Scalar& weight) {
  check_foreach_api_restrictions(self, end);
  if (!foreach_in_place({HAL_OP_LERP, self, {self, end, weight}, std::nullopt})) {
    at::native::foreach_tensor_lerp_list_kernel_slow_(self, end, weight);
  }
}
std::vector<at::Tensor> lerp_list(at::TensorList self, at::TensorList end, at::TensorList weights) {
  check_foreach_api_restrictions(self, end, weights);
  if (auto out = foreach_functional({HAL_OP_LERP, self, {self, end, weights}, std::nullopt})) return std::move(*out);
  return at::native::foreach_tensor_ternary_lerp_slow(self, end, weights);
}
void lerp_list_(at::TensorList self, at::TensorList end, at::TensorList weights) {
  check_foreach_api_restrictions(self, end, weights);
  if (!foreach_in_place({HAL_OP_LERP, self, {self, end, weights}, std::nullopt})) {
    at::native::foreach_tensor_ternary_lerp_slow_(self, end, weights);
  }
}

std::vector<at::Tensor> foreach_sqrt(at::TensorList self) {
  check_foreach_api_restrictions(self);
  if (auto out = foreach_functional({HAL_OP_SQRT, self, {self}, std::nullopt})) return std::move(*out);
  return at::native::foreach_tensor_sqrt_slow(self);
}
void foreach_sqrt_(at::TensorList self) {
  check_foreach_api_restrictions(self);
  if (!foreach_in_place({HAL_OP_SQRT, self, {self}, std::nullopt})) at::native::foreach_tensor_sqrt_slow_(self);
}

// zero_: every tensor a copy of the scalar 0 (not 0 * x, which keeps NaN and infinity as NaN).
void foreach_zero_(at::TensorList self) {
  static const c10::Scalar kZero(int64_t{0});
  check_foreach_api_restrictions(self);
  if (!foreach_in_place({HAL_OP_COPY, self, {kZero}, std::nullopt})) at::native::foreach_tensor_zero_slow_(self);
}

// A foreach kernel whose fast route is HAL_OP_FOREACH over the adapter op OP (recorded in dispatch/kernel_table.h).
#define HAL_FOREACH(m, overload_name, OP, ...) \
  impl_recorded(m, Route::Foreach, overload_name, TORCH_FN((__VA_ARGS__)), launches(HAL_OP_FOREACH, OP))

// .Scalar and .ScalarList overloads, functional and in place, of add, sub, mul and div.
#define HAL_FOREACH_WITH_SCALARS(m, name, OP)                                                                          \
  HAL_FOREACH(m, "_foreach_" #name ".Scalar", OP,                                                                      \
              with_scalar<OP, &at::native::foreach_tensor_##name##_scalar_kernel_slow, const c10::Scalar&>);           \
  HAL_FOREACH(m, "_foreach_" #name "_.Scalar", OP,                                                                     \
              with_scalar_<OP, &at::native::foreach_tensor_##name##_scalar_kernel_slow_, const c10::Scalar&>);         \
  HAL_FOREACH(m, "_foreach_" #name ".ScalarList", OP,                                                                  \
              with_scalar<OP, &at::native::foreach_tensor_##name##_scalarlist_kernel_slow, ScalarList>);               \
  HAL_FOREACH(m, "_foreach_" #name "_.ScalarList", OP,                                                                 \
              with_scalar_<OP, &at::native::foreach_tensor_##name##_scalarlist_kernel_slow_, ScalarList>)

// .Scalar and .ScalarList overloads, functional and in place, of addcmul and addcdiv.
#define HAL_FOREACH_POINTWISE(m, name, OP)                                                                             \
  HAL_FOREACH(m, "_foreach_" #name ".Scalar", OP,                                                                      \
              pointwise<OP, &at::native::foreach_tensor_##name##_scalar_slow, const c10::Scalar&>);                    \
  HAL_FOREACH(m, "_foreach_" #name "_.Scalar", OP,                                                                     \
              pointwise_<OP, &at::native::foreach_tensor_##name##_scalar_slow_, const c10::Scalar&>);                  \
  HAL_FOREACH(m, "_foreach_" #name ".ScalarList", OP,                                                                  \
              pointwise<OP, &at::native::foreach_tensor_##name##_scalarlist_slow, ScalarList>);                        \
  HAL_FOREACH(m, "_foreach_" #name "_.ScalarList", OP,                                                                 \
              pointwise_<OP, &at::native::foreach_tensor_##name##_scalarlist_slow_, ScalarList>)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_FOREACH_WITH_SCALARS(m, add, HAL_OP_ADD);
  HAL_FOREACH_WITH_SCALARS(m, sub, HAL_OP_SUB);
  HAL_FOREACH_WITH_SCALARS(m, mul, HAL_OP_MUL);
  HAL_FOREACH_WITH_SCALARS(m, div, HAL_OP_DIV);
  HAL_FOREACH(m, "_foreach_add.List", HAL_OP_ADD,
              with_list_alpha<HAL_OP_ADD, &at::native::foreach_tensor_add_list_kernel_slow>);
  HAL_FOREACH(m, "_foreach_add_.List", HAL_OP_ADD,
              with_list_alpha_<HAL_OP_ADD, &at::native::foreach_tensor_add_list_kernel_slow_>);
  HAL_FOREACH(m, "_foreach_sub.List", HAL_OP_SUB,
              with_list_alpha<HAL_OP_SUB, &at::native::foreach_tensor_sub_list_kernel_slow>);
  HAL_FOREACH(m, "_foreach_sub_.List", HAL_OP_SUB,
              with_list_alpha_<HAL_OP_SUB, &at::native::foreach_tensor_sub_list_kernel_slow_>);
  HAL_FOREACH(m, "_foreach_mul.List", HAL_OP_MUL,
              with_list<HAL_OP_MUL, &at::native::foreach_tensor_mul_list_kernel_slow>);
  HAL_FOREACH(m, "_foreach_mul_.List", HAL_OP_MUL,
              with_list_<HAL_OP_MUL, &at::native::foreach_tensor_mul_list_kernel_slow_>);
  HAL_FOREACH(m, "_foreach_div.List", HAL_OP_DIV,
              with_list<HAL_OP_DIV, &at::native::foreach_tensor_div_list_kernel_slow>);
  HAL_FOREACH(m, "_foreach_div_.List", HAL_OP_DIV,
              with_list_<HAL_OP_DIV, &at::native::foreach_tensor_div_list_kernel_slow_>);
  HAL_FOREACH(m, "_foreach_mul.Tensor", HAL_OP_MUL,
              with_tensor<HAL_OP_MUL, &at::native::foreach_tensor_mul_tensor_kernel_slow>);
  HAL_FOREACH(m, "_foreach_mul_.Tensor", HAL_OP_MUL,
              with_tensor_<HAL_OP_MUL, &at::native::foreach_tensor_mul_tensor_kernel_slow_>);
  HAL_FOREACH(m, "_foreach_div.Tensor", HAL_OP_DIV,
              with_tensor<HAL_OP_DIV, &at::native::foreach_tensor_div_tensor_kernel_slow>);
  HAL_FOREACH(m, "_foreach_div_.Tensor", HAL_OP_DIV,
              with_tensor_<HAL_OP_DIV, &at::native::foreach_tensor_div_tensor_kernel_slow_>);
  HAL_FOREACH(m, "_foreach_add.Tensor", HAL_OP_ADD, add_tensor);
  HAL_FOREACH(m, "_foreach_add_.Tensor", HAL_OP_ADD, add_tensor_);
  HAL_FOREACH_POINTWISE(m, addcmul, HAL_OP_ADDCMUL);
  HAL_FOREACH_POINTWISE(m, addcdiv, HAL_OP_ADDCDIV);
  HAL_FOREACH(m, "_foreach_lerp.Scalar", HAL_OP_LERP, lerp_scalar);
  HAL_FOREACH(m, "_foreach_lerp_.Scalar", HAL_OP_LERP, lerp_scalar_);
  HAL_FOREACH(m, "_foreach_lerp.List", HAL_OP_LERP, lerp_list);
  HAL_FOREACH(m, "_foreach_lerp_.List", HAL_OP_LERP, lerp_list_);
  HAL_FOREACH(m, "_foreach_sqrt", HAL_OP_SQRT, foreach_sqrt);
  HAL_FOREACH(m, "_foreach_sqrt_", HAL_OP_SQRT, foreach_sqrt_);
  HAL_FOREACH(m, "_foreach_zero_", HAL_OP_COPY, foreach_zero_);
}

#undef HAL_FOREACH
#undef HAL_FOREACH_WITH_SCALARS
#undef HAL_FOREACH_POINTWISE

}  // namespace
}  // namespace torch_hal::native
