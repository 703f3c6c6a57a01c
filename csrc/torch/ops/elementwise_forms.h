// The functional, in-place and out= forms of elementwise ops, made from one description: the adapter op
// id and the TensorIterator that ATen's own kernel builds for the op (its "form": how dtypes promote and
// what the output dtype is). Every elementwise registration file uses these, so each form is built in one
// place and behaves as ATen's (broadcasting, promotion, overlap and casting checks, error messages).
#pragma once

#include <ATen/ScalarOps.h>
#include <ATen/TensorIterator.h>
#include <torch/library.h>

#include <initializer_list>
#include <optional>

#include "dispatch/native_first.h"
#include "ops/elementwise_launch.h"

namespace torch_hal::native {

enum class Form {
  Unary,        // output dtype = input dtype (neg, floor, bitwise_not)
  UnaryFloat,   // integers promote to the default float dtype (exp, sqrt, sigmoid)
  UnaryAnyOut,  // the output's dtype is the caller's (logical_not, isnan)
  Binary,       // promote to the common dtype (add, maximum, pow)
  BinaryFloat,  // promote, integers to float (true division, atan2)
  Comparison,   // compare in the common dtype, write bool (or the out= tensor's dtype)
  Promoting,    // any number of inputs promoted to a common dtype, cast to the output (clamp, addcmul, lerp)
};

// Whether the iterator of `form` promotes its inputs to a common dtype.
Promotion promotion_of(Form form);

// ATen's iterator of `form` over `inputs`, writing `out` (undefined: allocated by the iterator). The
// iterator borrows `out` and the inputs: they must outlive it.
at::TensorIterator make_iterator(Form form, const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs);

// A Python number as ATen passes it to Tensor kernels: a 0-dim CPU tensor marked as a wrapped number, so
// type promotion treats it as a scalar; launch_elementwise sends it as a scalar operand.
inline at::Tensor wrapped(const c10::Scalar& s) { return at::native::wrapped_scalar_tensor(s); }

// Launches `op` over the iterator of `form`; nullopt / false when the adapter has no kernel for it.
std::optional<at::Tensor> run_functional(hal_op_t op, Form form, std::initializer_list<const at::Tensor*> inputs,
                                         std::initializer_list<c10::Scalar> scalars = {});
bool run_into(hal_op_t op, Form form, const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs,
              std::initializer_list<c10::Scalar> scalars = {});

inline void no_check(const at::Tensor&) {}

// op(self), op_(self), op.out(self, out)
template <hal_op_t OP, Form F, auto Check = no_check>
std::optional<at::Tensor> unary(const at::Tensor& self) {
  Check(self);
  return run_functional(OP, F, {&self});
}
template <hal_op_t OP, Form F, auto Check = no_check>
bool unary_(at::Tensor& self) {
  Check(self);
  return run_into(OP, F, self, {&self});
}
template <hal_op_t OP, Form F, auto Check = no_check>
bool unary_out(const at::Tensor& self, at::Tensor& out) {
  Check(self);
  return run_into(OP, F, out, {&self});
}

// op(self, other), op_(self, other), op.out(self, other, out)
template <hal_op_t OP, Form F>
std::optional<at::Tensor> binary(const at::Tensor& self, const at::Tensor& other) {
  return run_functional(OP, F, {&self, &other});
}
template <hal_op_t OP, Form F>
bool binary_(at::Tensor& self, const at::Tensor& other) {
  return run_into(OP, F, self, {&self, &other});
}
template <hal_op_t OP, Form F>
bool binary_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return run_into(OP, F, out, {&self, &other});
}

// The same with a Scalar second operand (eq.Scalar and the like, where ATen has a kernel for them).
template <hal_op_t OP, Form F>
std::optional<at::Tensor> binary_scalar(const at::Tensor& self, const c10::Scalar& other) {
  const at::Tensor o = wrapped(other);
  return run_functional(OP, F, {&self, &o});
}
template <hal_op_t OP, Form F>
bool binary_scalar_(at::Tensor& self, const c10::Scalar& other) {
  const at::Tensor o = wrapped(other);
  return run_into(OP, F, self, {&self, &o});
}
template <hal_op_t OP, Form F>
bool binary_scalar_out(const at::Tensor& self, const c10::Scalar& other, at::Tensor& out) {
  const at::Tensor o = wrapped(other);
  return run_into(OP, F, out, {&self, &o});
}

// The three forms (HAL_NATIVE_FORMS, dispatch/native_first.h) over the templates above.
#define HAL_NATIVE_UNARY(m, op, name, OP, FORM) \
  HAL_NATIVE_FORMS(m, op, name, OP, ::torch_hal::native::unary, <OP, FORM>)
#define HAL_NATIVE_BINARY(m, op, name, OP, FORM) \
  HAL_NATIVE_FORMS(m, op, name, OP, ::torch_hal::native::binary, <OP, FORM>)
// A binary op's Tensor overloads: op.Tensor, op_.Tensor, op.Tensor_out.
#define HAL_NATIVE_BINARY_TENSOR(m, op, OP, FORM)                                                         \
  HAL_NATIVE(m, op##_Tensor, #op ".Tensor", launches(OP), ::torch_hal::native::binary<OP, FORM>);         \
  HAL_NATIVE(m, op##__Tensor, #op "_.Tensor", launches(OP), ::torch_hal::native::binary_<OP, FORM>);      \
  HAL_NATIVE(m, op##_Tensor_out, #op ".Tensor_out", launches(OP), ::torch_hal::native::binary_out<OP, FORM>)

}  // namespace torch_hal::native
