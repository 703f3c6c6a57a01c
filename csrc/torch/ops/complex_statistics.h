// var / std / var_mean / std_mean of complex tensors from the real ones of their parts. ATen defines the variance
// of a complex tensor as the variance of its real parts plus that of its imaginary parts (a real result; std its
// square root), with the same dims, correction and keepdim, and var_mean's mean as the complex mean of the parts'
// means. So the real var_mean over the (real, imaginary) view (at::view_as_real: a trailing dimension of 2),
// reducing the complex tensor's dims, gives both parts' variances and means at once, through hal's native real
// kernels. Conjugate / negative bits are resolved first; ComplexHalf and out= tensors of another dtype than the
// real one answer "not handled" (nullopt / false), taking ATen's route.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <tuple>

namespace torch_hal::native::complex_statistics {

// var.correction (std.correction when `take_sqrt`).
std::optional<at::Tensor> var(const at::Tensor& self, at::OptionalIntArrayRef dim,
                              const std::optional<c10::Scalar>& correction, bool keepdim, bool take_sqrt);
// var.correction_out / std.correction_out.
bool var_out(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<c10::Scalar>& correction,
             bool keepdim, bool take_sqrt, at::Tensor& out);
// var_mean.correction / std_mean.correction: (the real spread, the complex mean).
std::optional<std::tuple<at::Tensor, at::Tensor>> var_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                                          const std::optional<c10::Scalar>& correction, bool keepdim,
                                                          bool take_sqrt);

}  // namespace torch_hal::native::complex_statistics
