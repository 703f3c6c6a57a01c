// Complex elementwise ops as compositions of the adapter's real kernels. The adapter ABI has no complex
// dtype, but a complex tensor is a real tensor of (real, imaginary) pairs (at::view_as_real: a trailing
// dimension of 2, stride 1), so each complex op here is a few launches of native real kernels over those
// views, computing what ATen's CPU kernels compute (the same formulas, in the same order, in the real dtype
// of the complex one). An op or operand mix that is not done here answers "not handled" (nullopt / false)
// with nothing visible written, and the op takes its other paths (the CPU fallback), which are always right.
#pragma once

#include <ATen/core/Tensor.h>

#include <initializer_list>
#include <optional>

#include "ops/elementwise_forms.h"

namespace torch_hal::native::complex_by_real_view {

// Whether `out` (when defined) or any input is complex: the elementwise forms then hand the op to elementwise().
bool involves_complex(const at::Tensor* out, std::initializer_list<const at::Tensor*> inputs);

// `op` over the iterator of `form` with complex operands (and real ones or Python numbers promoted to
// complex), `scalars` being the op's own (add/sub: alpha; div: the rounding mode). `out` undefined: the
// result is allocated. Returns the result (`out` itself when given), or nullopt when not handled. Done:
// add, sub (real alpha), mul, div (true division), reciprocal, neg, eq, ne, abs.out (hypot of the parts),
// isnan (into a bool `out`), angle (into a real result), and the functions of complex_functions.h: exp, exp2,
// expm1, log, log2, log10, log1p, sqrt, rsqrt, sin, cos, tan, sinh, cosh, tanh, asin, acos, atan, asinh, acosh,
// atanh, sigmoid, silu, sinc, logaddexp, lerp (complex self), addcmul and addcdiv (any value).
std::optional<at::Tensor> elementwise(hal_op_t op, Form form, const at::Tensor& out,
                                      std::initializer_list<const at::Tensor*> inputs,
                                      std::initializer_list<c10::Scalar> scalars);

// sgn of a complex tensor (z / |z|, 0 at 0; torch.sign refuses complex, so it has no op id of its own here):
// into `out` (undefined: allocated; self: in place). nullopt when not handled.
std::optional<at::Tensor> sgn(const at::Tensor& self, const at::Tensor& out);

// conj_physical.out: the real part copied, the imaginary part negated. False when not handled.
bool conj_physical_out(const at::Tensor& self, at::Tensor& out);
// conj_physical_: nothing to do for real tensors (as ATen), the imaginary part negated in place for complex ones.
bool conj_physical_(at::Tensor& self);

}  // namespace torch_hal::native::complex_by_real_view
