// frexp from the bits of the IEEE format, read through a same-size integer view: the biased exponent gives the
// exponent, and the sign and fraction bits under the exponent of [0.5, 1) give the mantissa. ATen gives frexp a CPU
// kernel of its own (std::frexp), so without this it took the CPU fallback. Bits rather than log2 and a division
// because those are inexact near powers of two and overflow at the largest exponents; bit operations are exact.
// Subnormals are first scaled into the normal range by a power of two; zero, inf and NaN keep their value with
// exponent 0, as std::frexp gives them on the CPU. Half and bfloat16 are exact in float and so are their
// mantissas, so they go through float. Other dtypes keep ATen's route (its error).
#include <ATen/ops/where.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

// An IEEE binary format as frexp needs it.
struct Format {
  at::ScalarType bits_type;    // the integer type of the same size
  int64_t fraction_bits;       // below the exponent
  int64_t exponent_mask;       // the exponent field, shifted down
  int64_t half_exponent;       // the biased exponent of [0.5, 1): bias - 1
  int64_t sign_and_fraction;   // the bits a mantissa keeps, as a value of bits_type
  double smallest_normal;
};
Format format_of(at::ScalarType t) {
  if (t == at::kDouble) {
    return {at::kLong, 52, 0x7ff, 1022, static_cast<int64_t>(0x800fffffffffffffULL),
            std::numeric_limits<double>::min()};
  }
  return {at::kInt, 23, 0xff, 126, static_cast<int32_t>(0x807fffffU), std::numeric_limits<float>::min()};
}

std::tuple<at::Tensor, at::Tensor> mantissa_and_exponent(const at::Tensor& self) {
  const at::ScalarType compute = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const Format f = format_of(compute);
  const at::Tensor x = self.to(compute);
  // Subnormals times 2^(fraction_bits + 1) are normal, and the product is exact.
  const at::Tensor subnormal = x.abs().lt(f.smallest_normal).logical_and_(x.ne(0));
  const at::Tensor normal = at::where(subnormal, x.mul(std::ldexp(1.0, f.fraction_bits + 1)), x);
  const at::Tensor bits = normal.contiguous().view(f.bits_type);
  const at::Tensor biased = bits.bitwise_right_shift(f.fraction_bits).bitwise_and(f.exponent_mask);
  const at::Tensor kept = biased.eq(0).logical_or_(biased.eq(f.exponent_mask));  // zero, inf, NaN
  const at::Tensor exponent = biased.sub(f.half_exponent).sub_(at::where(subnormal, f.fraction_bits + 1, 0));
  const at::Tensor mantissa =
      bits.bitwise_and(f.sign_and_fraction).bitwise_or_(f.half_exponent << f.fraction_bits).view(compute);
  return {at::where(kept, x, mantissa).to(self.scalar_type()), at::where(kept, 0, exponent).to(at::kInt)};
}

std::optional<std::tuple<at::Tensor&, at::Tensor&>> native_frexp_out(const at::Tensor& self, at::Tensor& mantissa,
                                                                     at::Tensor& exponent) {
  const at::ScalarType t = self.scalar_type();
  if (t != at::kFloat && t != at::kDouble && t != at::kHalf && t != at::kBFloat16) return std::nullopt;
  if (mantissa.scalar_type() != t || exponent.scalar_type() != at::kInt) return std::nullopt;
  const auto [m, e] = mantissa_and_exponent(self);
  at::native::resize_output(mantissa, self.sizes());
  at::native::resize_output(exponent, self.sizes());
  mantissa.copy_(m);
  exponent.copy_(e);
  return std::tuple<at::Tensor&, at::Tensor&>(mantissa, exponent);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, frexp_Tensor_out, "frexp.Tensor_out", launches(), native_frexp_out);
}

}  // namespace
}  // namespace torch_hal::native
