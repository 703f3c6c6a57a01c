// Three-input elementwise ops: where, masked_fill_ (as an in-place where), clamp with both bounds,
// addcmul, addcdiv and lerp. They use ATen's promoting iterator; where keeps its own (no promotion of the
// condition, the result dtype of self and other).
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/view_as_real.h>

#include "ops/elementwise_forms.h"

namespace torch_hal::native {
namespace {

// where's condition, as ATen accepts it (uint8 with a deprecation warning, converted to bool).
at::Tensor bool_condition(const at::Tensor& condition, const char* op) {
  if (condition.scalar_type() == at::kByte) {
    TORCH_WARN_ONCE(op, " received a uint8 condition tensor. This behavior is deprecated and will be removed in "
                        "a future version of PyTorch. Use a boolean condition instead.");
    return condition.to(at::kBool);
  }
  TORCH_CHECK(condition.scalar_type() == at::kBool, op, " expected condition to be a boolean tensor, but got a tensor with dtype ",
              condition.scalar_type());
  return condition;
}

// A 0-dim CPU operand (a Python number ATen wrapped) moves to the device as one element: where's iterator
// does not promote, so the kernel reads it as a tensor of its own dtype.
at::Tensor on_device(const at::Tensor& t, const at::Device& device) {
  return (t.device() != device && t.dim() == 0) ? t.to(device) : t;
}

bool where_into(at::Tensor& out, const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  const at::Tensor cond = bool_condition(condition, "where");
  const at::Device device = out.defined() ? out.device() : (self.device().is_cpu() ? other.device() : self.device());
  const at::Tensor a = on_device(self, device), b = on_device(other, device), c = on_device(cond, device);
  auto iter = at::TensorIteratorConfig()
                  .check_all_same_dtype(false)
                  .add_output(out)
                  .add_const_input(c)
                  .add_const_input(a)
                  .add_const_input(b)
                  .build();
  return launch_elementwise(iter, HAL_OP_WHERE);
}

// A complex operand or output as its (real, imaginary) view: of dtype `type` (complex64 or complex128), on
// the device, without conjugate or negative bits (which the other paths apply).
bool pairs_done(const at::Tensor& t, at::ScalarType type) {
  return (type == at::kComplexFloat || type == at::kComplexDouble) && t.scalar_type() == type && !t.device().is_cpu() &&
         !t.is_conj() && !t.is_neg();
}

// Complex where: the real where over the (real, imaginary) views, the condition unsqueezed to broadcast over
// the trailing pair. `out` is resized to the broadcast shape (ATen's out= rules).
bool where_complex(at::Tensor& out, const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  const at::ScalarType type = out.scalar_type();
  if (!pairs_done(self, type) || !pairs_done(other, type) || !pairs_done(out, type)) return false;
  if (out.is_alias_of(self) || out.is_alias_of(other) || out.is_alias_of(condition)) return false;
  const at::Tensor cond = bool_condition(condition, "where");
  if (cond.device() != out.device()) return false;
  at::native::resize_output(out, at::infer_size_dimvector(cond.sizes(), at::infer_size_dimvector(self.sizes(), other.sizes())));
  at::Tensor pairs = at::view_as_real(out);
  return where_into(pairs, cond.unsqueeze(-1), at::view_as_real(self), at::view_as_real(other));
}

std::optional<at::Tensor> where_self(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  const at::ScalarType type = at::result_type(self, other);
  const at::Device device = self.device().is_cpu() ? (other.device().is_cpu() ? condition.device() : other.device())
                                                   : self.device();
  if (at::isComplexType(type)) {
    at::Tensor out = at::empty({0}, self.options().dtype(type).device(device));
    if (!where_complex(out, condition, self, other)) return std::nullopt;
    return out;
  }
  at::Tensor out = at::empty({0}, self.options().dtype(type).device(device));
  if (!where_into(out, condition, self, other)) return std::nullopt;
  return out;
}
bool where_self_out(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  const at::ScalarType type = at::result_type(self, other);
  TORCH_CHECK(out.scalar_type() == type, "Expected out type to be ", type, " but got ", out.scalar_type());
  at::Tensor target = out;
  if (at::isComplexType(type)) return where_complex(target, condition, self, other);
  return where_into(target, condition, self, other);
}

// masked_fill_(self, mask, value) is self = where(mask, value, self), in place, mask broadcast to self.
bool masked_fill_with(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  TORCH_CHECK(self.device() == mask.device(), "expected mask and self to be on the same device");
  if (self.is_complex()) {
    // The real masked fill of the (real, imaginary) views, the mask unsqueezed over the trailing pair.
    if (!pairs_done(self, self.scalar_type()) || !pairs_done(value, self.scalar_type())) return false;
    at::Tensor pairs = at::view_as_real(self);
    return masked_fill_with(pairs, mask.unsqueeze(-1), at::view_as_real(value));
  }
  auto iter = at::TensorIteratorConfig()
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self)
                  .add_const_input(mask)
                  .add_const_input(value)
                  .add_const_input(self)
                  .build();
  return launch_elementwise(iter, HAL_OP_WHERE);
}
bool masked_fill_scalar(at::Tensor& self, const at::Tensor& mask, const c10::Scalar& value) {
  const at::Tensor v = at::scalar_tensor(value, self.options());
  return masked_fill_with(self, mask, v);
}
bool masked_fill_tensor(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  if (value.device() != self.device()) return masked_fill_scalar(self, mask, value.item());
  return masked_fill_with(self, mask, value);
}

// clamp with Scalar bounds: the bounds take part in promotion as Python numbers; one absent bound makes
// it clamp_min or clamp_max.
void check_bounds(bool has_min, bool has_max) {
  TORCH_CHECK(has_min || has_max, "torch.clamp: At least one of 'min' or 'max' must not be None");
}
template <class Bound>
bool clamp_into(const at::Tensor& out, at::Tensor* functional, const at::Tensor& self, const Bound& lo, const Bound& hi) {
  check_bounds(lo.has_value(), hi.has_value());
  TORCH_CHECK(!self.is_complex(), "clamp is not supported for complex types");
  auto operand = [](const auto& b) {
    if constexpr (std::is_same_v<Bound, std::optional<c10::Scalar>>) return wrapped(*b);
    else return *b;
  };
  at::Tensor target = out;
  std::optional<at::TensorIterator> iter;
  if (lo.has_value() && hi.has_value()) {
    const at::Tensor l = operand(lo), h = operand(hi);
    if constexpr (std::is_same_v<Bound, std::optional<c10::Scalar>>) {
      // TensorIterator gives a non-CPU kernel one CPU scalar at most, so two Python-number bounds take two
      // passes: clamp_min, then clamp_max over its result (the same values, NaN kept, max winning).
      iter.emplace(make_iterator(Form::Promoting, target, {&self, &l}));
      if (!launch_elementwise(*iter, HAL_OP_CLAMP_MIN, {}, Promotion::ToCommonDtype)) return false;
      at::Tensor first = iter->output();
      at::Tensor second = functional != nullptr ? at::Tensor() : first;
      iter.emplace(make_iterator(Form::Promoting, second, {&first, &h}));
      if (!launch_elementwise(*iter, HAL_OP_CLAMP_MAX, {}, Promotion::ToCommonDtype)) return false;
    } else {
      iter.emplace(make_iterator(Form::Promoting, target, {&self, &l, &h}));
      if (!launch_elementwise(*iter, HAL_OP_CLAMP, {}, Promotion::ToCommonDtype)) return false;
    }
  } else {
    const at::Tensor b = lo.has_value() ? operand(lo) : operand(hi);
    iter.emplace(make_iterator(Form::Promoting, target, {&self, &b}));
    if (!launch_elementwise(*iter, lo.has_value() ? HAL_OP_CLAMP_MIN : HAL_OP_CLAMP_MAX, {}, Promotion::ToCommonDtype)) return false;
  }
  if (functional != nullptr) *functional = iter->output();
  return true;
}
template <class Bound>
std::optional<at::Tensor> clamp(const at::Tensor& self, const Bound& lo, const Bound& hi) {
  at::Tensor result;
  if (!clamp_into(at::Tensor(), &result, self, lo, hi)) return std::nullopt;
  return result;
}
template <class Bound>
bool clamp_(at::Tensor& self, const Bound& lo, const Bound& hi) {
  return clamp_into(self, nullptr, self, lo, hi);
}
template <class Bound>
bool clamp_out(const at::Tensor& self, const Bound& lo, const Bound& hi, at::Tensor& out) {
  return clamp_into(out, nullptr, self, lo, hi);
}
using ScalarBound = std::optional<c10::Scalar>;
using TensorBound = std::optional<at::Tensor>;

// clamp_min / clamp_max with a Scalar bound.
template <bool Min>
std::optional<at::Tensor> clamp_one(const at::Tensor& self, const c10::Scalar& b) {
  return Min ? clamp<ScalarBound>(self, b, std::nullopt) : clamp<ScalarBound>(self, std::nullopt, b);
}
template <bool Min>
bool clamp_one_(at::Tensor& self, const c10::Scalar& b) {
  return Min ? clamp_<ScalarBound>(self, b, std::nullopt) : clamp_<ScalarBound>(self, std::nullopt, b);
}
template <bool Min>
bool clamp_one_out(const at::Tensor& self, const c10::Scalar& b, at::Tensor& out) {
  return Min ? clamp_out<ScalarBound>(self, b, std::nullopt, out) : clamp_out<ScalarBound>(self, std::nullopt, b, out);
}

// addcmul / addcdiv: self + value * t1 (*|/) t2.
void check_addcdiv(const at::Tensor& t1, const at::Tensor& t2) {
  TORCH_CHECK(!(c10::isIntegralType(t1.scalar_type(), true) && c10::isIntegralType(t2.scalar_type(), true)),
              "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a "
              "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
              "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
}
template <hal_op_t OP>
std::optional<at::Tensor> addc(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const c10::Scalar& v) {
  if (OP == HAL_OP_ADDCDIV) check_addcdiv(t1, t2);
  return run_functional(OP, Form::Promoting, {&self, &t1, &t2}, {v});
}
template <hal_op_t OP>
bool addc_(at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const c10::Scalar& v) {
  if (OP == HAL_OP_ADDCDIV) check_addcdiv(t1, t2);
  return run_into(OP, Form::Promoting, self, {&self, &t1, &t2}, {v});
}
template <hal_op_t OP>
bool addc_out(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const c10::Scalar& v, at::Tensor& out) {
  if (OP == HAL_OP_ADDCDIV) check_addcdiv(t1, t2);
  return run_into(OP, Form::Promoting, out, {&self, &t1, &t2}, {v});
}

// lerp(self, end, weight): self and end of one dtype; a Scalar weight is a scalar operand.
void check_lerp(const at::Tensor& self, const at::Tensor& end) {
  TORCH_CHECK(self.dtype() == end.dtype(), "expected dtype ", self.dtype(), " for `end` but got dtype ", end.dtype());
}
std::optional<at::Tensor> lerp_scalar(const at::Tensor& self, const at::Tensor& end, const c10::Scalar& w) {
  check_lerp(self, end);
  const at::Tensor weight = wrapped(w);
  return run_functional(HAL_OP_LERP, Form::Promoting, {&self, &end, &weight});
}
bool lerp_scalar_(at::Tensor& self, const at::Tensor& end, const c10::Scalar& w) {
  check_lerp(self, end);
  const at::Tensor weight = wrapped(w);
  return run_into(HAL_OP_LERP, Form::Promoting, self, {&self, &end, &weight});
}
bool lerp_scalar_out(const at::Tensor& self, const at::Tensor& end, const c10::Scalar& w, at::Tensor& out) {
  check_lerp(self, end);
  const at::Tensor weight = wrapped(w);
  return run_into(HAL_OP_LERP, Form::Promoting, out, {&self, &end, &weight});
}
void check_lerp_weight(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight) {
  check_lerp(self, end);
  TORCH_CHECK(self.dtype() == weight.dtype(), "expected dtype ", self.dtype(), " for `weight` but got dtype ",
              weight.dtype());
}
std::optional<at::Tensor> lerp_tensor(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight) {
  check_lerp_weight(self, end, weight);
  return run_functional(HAL_OP_LERP, Form::Promoting, {&self, &end, &weight});
}
bool lerp_tensor_(at::Tensor& self, const at::Tensor& end, const at::Tensor& weight) {
  check_lerp_weight(self, end, weight);
  return run_into(HAL_OP_LERP, Form::Promoting, self, {&self, &end, &weight});
}
bool lerp_tensor_out(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight, at::Tensor& out) {
  check_lerp_weight(self, end, weight);
  return run_into(HAL_OP_LERP, Form::Promoting, out, {&self, &end, &weight});
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, where_self, "where.self", launches(HAL_OP_WHERE), where_self);
  HAL_NATIVE(m, where_self_out, "where.self_out", launches(HAL_OP_WHERE), where_self_out);
  HAL_NATIVE(m, masked_fill__Scalar, "masked_fill_.Scalar", launches(HAL_OP_WHERE), masked_fill_scalar);
  HAL_NATIVE(m, masked_fill__Tensor, "masked_fill_.Tensor", launches(HAL_OP_WHERE), masked_fill_tensor);
  HAL_NATIVE(m, clamp, "clamp", launches(HAL_OP_CLAMP_MIN, HAL_OP_CLAMP_MAX), clamp<ScalarBound>);
  HAL_NATIVE(m, clamp_, "clamp_", launches(HAL_OP_CLAMP_MIN, HAL_OP_CLAMP_MAX), clamp_<ScalarBound>);
  HAL_NATIVE(m, clamp_out, "clamp.out", launches(HAL_OP_CLAMP_MIN, HAL_OP_CLAMP_MAX), clamp_out<ScalarBound>);
  HAL_NATIVE(m, clamp_Tensor, "clamp.Tensor", launches(HAL_OP_CLAMP, HAL_OP_CLAMP_MIN, HAL_OP_CLAMP_MAX),
             clamp<TensorBound>);
  HAL_NATIVE(m, clamp__Tensor, "clamp_.Tensor", launches(HAL_OP_CLAMP, HAL_OP_CLAMP_MIN, HAL_OP_CLAMP_MAX),
             clamp_<TensorBound>);
  HAL_NATIVE(m, clamp_Tensor_out, "clamp.Tensor_out", launches(HAL_OP_CLAMP, HAL_OP_CLAMP_MIN, HAL_OP_CLAMP_MAX),
             clamp_out<TensorBound>);
  HAL_NATIVE_FORMS(m, clamp_min, "clamp_min", HAL_OP_CLAMP_MIN, clamp_one, <true>);
  HAL_NATIVE_FORMS(m, clamp_max, "clamp_max", HAL_OP_CLAMP_MAX, clamp_one, <false>);
  HAL_NATIVE_FORMS(m, addcmul, "addcmul", HAL_OP_ADDCMUL, addc, <HAL_OP_ADDCMUL>);
  HAL_NATIVE_FORMS(m, addcdiv, "addcdiv", HAL_OP_ADDCDIV, addc, <HAL_OP_ADDCDIV>);
  HAL_NATIVE(m, lerp_Scalar, "lerp.Scalar", launches(HAL_OP_LERP), lerp_scalar);
  HAL_NATIVE(m, lerp__Scalar, "lerp_.Scalar", launches(HAL_OP_LERP), lerp_scalar_);
  HAL_NATIVE(m, lerp_Scalar_out, "lerp.Scalar_out", launches(HAL_OP_LERP), lerp_scalar_out);
  HAL_NATIVE(m, lerp_Tensor, "lerp.Tensor", launches(HAL_OP_LERP), lerp_tensor);
  HAL_NATIVE(m, lerp__Tensor, "lerp_.Tensor", launches(HAL_OP_LERP), lerp_tensor_);
  HAL_NATIVE(m, lerp_Tensor_out, "lerp.Tensor_out", launches(HAL_OP_LERP), lerp_tensor_out);
}

}  // namespace
}  // namespace torch_hal::native
