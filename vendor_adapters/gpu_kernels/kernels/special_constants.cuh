// Constants of the special-function headers (bessel_functions.cuh, gaussian_functions.cuh, ...), in W.
#pragma once

namespace hal_gpu::special {

template <class W>
struct Constants {
  static constexpr W pi = W(3.14159265358979323846264338327950288);
  static constexpr W euler_gamma = W(0.57721566490153286060651209008240243);
  static constexpr W sqrt_half = W(0.70710678118654752440084436210484904);
  static constexpr W epsilon = W(1.1102230246251565e-16);  // half an ulp of 1 in double: where sums stop
};

}  // namespace hal_gpu::special
