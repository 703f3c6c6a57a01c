// torch.special's functions and their torch.* names (i0, erfinv, igamma, igammac, nextafter): Bessel functions
// of orders 0 and 1 and their scaled forms, Airy Ai, the spherical j0, erfinv / ndtri / log_ndtr / erfcx, the
// regularized incomplete gamma functions and the orthogonal polynomials. Each is one elementwise kernel of the
// library (adapter_ops.def; the math in kernels/elementwise_special.cuh, in double) over ATen's iterator of the
// op's form; complex inputs and dtypes a kernel lacks return "not handled" and take ATen's path (its errors).
#include <ATen/ExpandUtils.h>
#include <ATen/ops/full.h>
#include <ATen/ops/where.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <limits>

#include "ops/elementwise_forms.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// The orthogonal polynomials share one kernel; its mode names the polynomial (adapter_ops.def).
enum PolynomialMode : int64_t {
  kChebyshevT = 0, kChebyshevU = 1, kChebyshevV = 2, kChebyshevW = 3,
  kHermiteH = 4, kHermiteHe = 5, kLaguerreL = 6, kLegendreP = 7,
  kShiftedChebyshevT = 8, kShiftedChebyshevU = 9, kShiftedChebyshevV = 10, kShiftedChebyshevW = 11,
};

template <int64_t MODE>
std::optional<at::Tensor> polynomial(const at::Tensor& x, const at::Tensor& n) {
  return run_functional(HAL_OP_ORTHOGONAL_POLYNOMIAL, Form::BinaryFloat, {&x, &n}, {MODE});
}
template <int64_t MODE>
bool polynomial_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return run_into(HAL_OP_ORTHOGONAL_POLYNOMIAL, Form::BinaryFloat, out, {&x, &n}, {MODE});
}

// nextafter steps by the dtype's own ulp: the kernel computes float32 and float64 in their own type, while
// float16 and bfloat16 would be computed in float32, so those (and float32 where the adapter has no kernel: the
// special functions need double) are composed from the bit patterns (nextafter_by_bits).
bool nextafter_dtype(const at::Tensor& self, const at::Tensor& other) {
  const at::ScalarType t = at::result_type(self, other);
  return t == at::kFloat || t == at::kDouble;
}

// The bit pattern of a finite nonzero float, read as a signed integer of its width, grows by one per ulp away
// from zero whatever the sign (sign and magnitude), so nextafter(x, y) is that integer plus 1 where y lies
// beyond x away from zero ((y > x) == (x > 0)), else minus 1; the steps are counted in int64, which every
// adapter computes, and the pattern converted back. Zero steps to the smallest subnormal with y's sign, x == y
// gives y, and a NaN operand gives NaN, as the C library's nextafter (which ATen's CPU kernel calls).
std::optional<at::Tensor> nextafter_by_bits(const at::Tensor& self, const at::Tensor& other) {
  const at::ScalarType type = at::result_type(self, other);
  at::ScalarType bits;
  double smallest;
  switch (type) {
    case at::kHalf: bits = at::kShort, smallest = std::numeric_limits<c10::Half>::denorm_min(); break;
    case at::kBFloat16: bits = at::kShort, smallest = std::numeric_limits<c10::BFloat16>::denorm_min(); break;
    case at::kFloat: bits = at::kInt, smallest = std::numeric_limits<float>::denorm_min(); break;
    default: return std::nullopt;
  }
  if (!self.device().is_privateuseone()) return std::nullopt;
  const auto shape = at::infer_size(self.sizes(), other.sizes());
  const at::Tensor x = self.to(type).expand(shape).contiguous(), y = other.to(self.device(), type).expand(shape);
  const at::Tensor beyond = y.gt(x).to(at::kLong), positive = x.gt(0).to(at::kLong);
  const at::Tensor differ = beyond.sub(positive);  // 0 where the step is away from zero, else -1 or 1
  const at::Tensor step = differ.mul(differ).mul(-2).add(1);
  at::Tensor result = x.view(bits).to(at::kLong).add(step).to(bits).view(type);
  const at::Tensor from_zero = at::full({}, smallest, x.options()).copysign(y);
  result = at::where(x.eq(0), from_zero, result);
  result = at::where(x.eq(y), y, result);
  result = at::where(at::isnan(y), y, result);
  return at::where(at::isnan(x), x, result);
}

std::optional<at::Tensor> native_nextafter(const at::Tensor& self, const at::Tensor& other) {
  if (!nextafter_dtype(self, other)) return nextafter_by_bits(self, other);
  if (auto r = binary<HAL_OP_NEXTAFTER, Form::Binary>(self, other)) return r;
  return nextafter_by_bits(self, other);
}
bool native_nextafter_(at::Tensor& self, const at::Tensor& other) {
  if (nextafter_dtype(self, other) && binary_<HAL_OP_NEXTAFTER, Form::Binary>(self, other)) return true;
  if (at::result_type(self, other) != self.scalar_type()) return false;  // ATen's error
  const auto r = nextafter_by_bits(self, other);
  if (!r.has_value() || r->sizes() != self.sizes()) return false;
  self.copy_(*r);
  return true;
}
bool native_nextafter_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  if (out.scalar_type() != at::result_type(self, other)) return false;
  if (nextafter_dtype(self, other) && binary_out<HAL_OP_NEXTAFTER, Form::Binary>(self, other, out)) return true;
  return write_out(nextafter_by_bits(self, other), out);
}

// torch.special functions with a functional and an out= form only.
#define HAL_NATIVE_SPECIAL_UNARY(m, op, name, OP)                                                          \
  HAL_NATIVE(m, op, name, launches(OP), ::torch_hal::native::unary<OP, Form::UnaryFloat>);                \
  HAL_NATIVE(m, op##_out, name ".out", launches(OP), ::torch_hal::native::unary_out<OP, Form::UnaryFloat>)
#define HAL_NATIVE_POLYNOMIAL(m, op, name, MODE)                                                        \
  HAL_NATIVE(m, op, name, launches(HAL_OP_ORTHOGONAL_POLYNOMIAL), polynomial<MODE>);                   \
  HAL_NATIVE(m, op##_out, name ".out", launches(HAL_OP_ORTHOGONAL_POLYNOMIAL), polynomial_out<MODE>)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using enum Form;
  HAL_NATIVE_UNARY(m, i0, "i0", HAL_OP_BESSEL_I0, UnaryFloat);
  HAL_NATIVE_SPECIAL_UNARY(m, special_i0e, "special_i0e", HAL_OP_BESSEL_I0E);
  HAL_NATIVE_SPECIAL_UNARY(m, special_i1, "special_i1", HAL_OP_BESSEL_I1);
  HAL_NATIVE_SPECIAL_UNARY(m, special_i1e, "special_i1e", HAL_OP_BESSEL_I1E);
  HAL_NATIVE_SPECIAL_UNARY(m, special_modified_bessel_i0, "special_modified_bessel_i0", HAL_OP_BESSEL_I0);
  HAL_NATIVE_SPECIAL_UNARY(m, special_modified_bessel_i1, "special_modified_bessel_i1", HAL_OP_BESSEL_I1);
  HAL_NATIVE_SPECIAL_UNARY(m, special_modified_bessel_k0, "special_modified_bessel_k0", HAL_OP_BESSEL_K0);
  HAL_NATIVE_SPECIAL_UNARY(m, special_modified_bessel_k1, "special_modified_bessel_k1", HAL_OP_BESSEL_K1);
  HAL_NATIVE_SPECIAL_UNARY(m, special_scaled_modified_bessel_k0, "special_scaled_modified_bessel_k0",
                           HAL_OP_BESSEL_K0E);
  HAL_NATIVE_SPECIAL_UNARY(m, special_scaled_modified_bessel_k1, "special_scaled_modified_bessel_k1",
                           HAL_OP_BESSEL_K1E);
  HAL_NATIVE_SPECIAL_UNARY(m, special_bessel_j0, "special_bessel_j0", HAL_OP_BESSEL_J0);
  HAL_NATIVE_SPECIAL_UNARY(m, special_bessel_j1, "special_bessel_j1", HAL_OP_BESSEL_J1);
  HAL_NATIVE_SPECIAL_UNARY(m, special_bessel_y0, "special_bessel_y0", HAL_OP_BESSEL_Y0);
  HAL_NATIVE_SPECIAL_UNARY(m, special_bessel_y1, "special_bessel_y1", HAL_OP_BESSEL_Y1);
  HAL_NATIVE_SPECIAL_UNARY(m, special_airy_ai, "special_airy_ai", HAL_OP_AIRY_AI);
  HAL_NATIVE_SPECIAL_UNARY(m, special_spherical_bessel_j0, "special_spherical_bessel_j0",
                           HAL_OP_SPHERICAL_BESSEL_J0);
  HAL_NATIVE_UNARY(m, erfinv, "erfinv", HAL_OP_ERFINV, UnaryFloat);
  HAL_NATIVE_SPECIAL_UNARY(m, special_ndtri, "special_ndtri", HAL_OP_NDTRI);
  HAL_NATIVE_SPECIAL_UNARY(m, special_log_ndtr, "special_log_ndtr", HAL_OP_LOG_NDTR);
  HAL_NATIVE_SPECIAL_UNARY(m, special_erfcx, "special_erfcx", HAL_OP_ERFCX);

  // ATen computes these in the promoted dtype without turning integers into floats (it refuses them).
  HAL_NATIVE_BINARY(m, igamma, "igamma", HAL_OP_IGAMMA, Binary);
  HAL_NATIVE_BINARY(m, igammac, "igammac", HAL_OP_IGAMMAC, Binary);
  HAL_NATIVE(m, nextafter, "nextafter", launches(HAL_OP_NEXTAFTER), native_nextafter);
  HAL_NATIVE(m, nextafter_, "nextafter_", launches(HAL_OP_NEXTAFTER), native_nextafter_);
  HAL_NATIVE(m, nextafter_out, "nextafter.out", launches(HAL_OP_NEXTAFTER), native_nextafter_out);

  // The (x, n) Tensor overloads; the scalar ones wrap their number and come here.
  HAL_NATIVE_POLYNOMIAL(m, special_chebyshev_polynomial_t, "special_chebyshev_polynomial_t", kChebyshevT);
  HAL_NATIVE_POLYNOMIAL(m, special_chebyshev_polynomial_u, "special_chebyshev_polynomial_u", kChebyshevU);
  HAL_NATIVE_POLYNOMIAL(m, special_chebyshev_polynomial_v, "special_chebyshev_polynomial_v", kChebyshevV);
  HAL_NATIVE_POLYNOMIAL(m, special_chebyshev_polynomial_w, "special_chebyshev_polynomial_w", kChebyshevW);
  HAL_NATIVE_POLYNOMIAL(m, special_hermite_polynomial_h, "special_hermite_polynomial_h", kHermiteH);
  HAL_NATIVE_POLYNOMIAL(m, special_hermite_polynomial_he, "special_hermite_polynomial_he", kHermiteHe);
  HAL_NATIVE_POLYNOMIAL(m, special_laguerre_polynomial_l, "special_laguerre_polynomial_l", kLaguerreL);
  HAL_NATIVE_POLYNOMIAL(m, special_legendre_polynomial_p, "special_legendre_polynomial_p", kLegendreP);
  HAL_NATIVE_POLYNOMIAL(m, special_shifted_chebyshev_polynomial_t, "special_shifted_chebyshev_polynomial_t",
                        kShiftedChebyshevT);
  HAL_NATIVE_POLYNOMIAL(m, special_shifted_chebyshev_polynomial_u, "special_shifted_chebyshev_polynomial_u",
                        kShiftedChebyshevU);
  HAL_NATIVE_POLYNOMIAL(m, special_shifted_chebyshev_polynomial_v, "special_shifted_chebyshev_polynomial_v",
                        kShiftedChebyshevV);
  HAL_NATIVE_POLYNOMIAL(m, special_shifted_chebyshev_polynomial_w, "special_shifted_chebyshev_polynomial_w",
                        kShiftedChebyshevW);
}

}  // namespace
}  // namespace torch_hal::native
