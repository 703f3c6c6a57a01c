// The fast route of torch._foreach_* ops: ONE native launch (HAL_OP_FOREACH, adapter.h) over every tensor
// of the op's lists, as CUDA's multi-tensor kernels do, instead of one per-tensor op (and launch) each.
//
// It applies where every tensor lives on one hal device with native kernels, all share one floating dtype
// (no type promotion), the tensors of each group (one index of the lists) have one size and one dense
// layout, scalars are real numbers (no bool, no complex), and, in place, no tensor written overlaps
// another operand. Everything else is the caller's slow path: ATen's per-tensor kernel, which raises
// PyTorch's own errors (devices, broadcasting, casting) and runs each op natively or by its fallback.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/SmallVector.h>

#include <optional>
#include <vector>

#include "torch_hal/adapter.h"

namespace torch_hal::native {

// A scalar argument: one value for every group (Scalar overloads) or one per group (ScalarList).
class GroupScalar {
 public:
  explicit GroupScalar(const c10::Scalar& every) : every_(&every) {}
  explicit GroupScalar(at::ArrayRef<c10::Scalar> each) : each_(each) {}
  const c10::Scalar& operator[](size_t group) const { return every_ != nullptr ? *every_ : each_[group]; }
  // Whether it has a value for each of `groups` groups (a ScalarList: one per group).
  bool covers(size_t groups) const { return every_ != nullptr || each_.size() == groups; }

 private:
  const c10::Scalar* every_ = nullptr;
  at::ArrayRef<c10::Scalar> each_;
};

// One input of the inner op, for every group: a tensor list, a scalar operand, or one 0-dim tensor whose
// value the device reads (the .Tensor overloads: clip_grad_norm_'s coefficient), with no host round trip.
struct ForeachOperand {
  // Implicit, so that a call lists its operands as the op takes them: {self, other}, {self, scalar}.
  ForeachOperand(at::TensorList list) : tensors(list) {}
  ForeachOperand(const c10::Scalar& every) : scalar(GroupScalar(every)) {}
  ForeachOperand(at::ArrayRef<c10::Scalar> each) : scalar(GroupScalar(each)) {}
  // Explicit: a Tensor also converts to a one-element TensorList.
  static ForeachOperand every_group(const at::Tensor& t) {
    ForeachOperand o{at::TensorList()};
    o.element = &t;
    return o;
  }
  at::TensorList tensors;              // when scalar and element are empty
  std::optional<GroupScalar> scalar;
  const at::Tensor* element = nullptr;  // a 0-dim tensor, the same operand for every group
};

// A foreach op as its inner elementwise op sees it: group g computes op(operands[0][g], ...) into self[g]
// (in place) or into a new tensor shaped like self[g].
struct ForeachCall {
  hal_op_t op;
  at::TensorList self;
  c10::SmallVector<ForeachOperand, 3> operands;  // the inner op's inputs, in its order (adapter.h)
  std::optional<GroupScalar> own;                // the inner op's own scalar (alpha, value, DIV's rounding)
};

// In place: self[g] = op(...) for every group in one launch, then each self[g]'s version bumped once
// (ATen's autograd layer does not bump the tensors of a list; its CUDA foreach kernels do, as this does).
// False, having written nothing, where the fast route does not apply.
bool foreach_in_place(const ForeachCall& call);

// Into new tensors (empty_like(self[g])); nullopt, having launched nothing, where it does not apply.
std::optional<std::vector<at::Tensor>> foreach_functional(const ForeachCall& call);

}  // namespace torch_hal::native
