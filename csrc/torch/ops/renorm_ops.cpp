// renorm from linalg_vector_norm, where and mul: each slice along `dim` whose p-norm exceeds maxnorm is scaled by
// maxnorm / (norm + 1e-7). ATen gives renorm a CPU kernel of its own (structured: renorm, renorm_ and renorm.out),
// so without these it took the CPU fallback. As there, the norms of half and bfloat16 are taken in float and the
// factor is rounded to the input's dtype before the product; integer inputs keep ATen's route (its error).
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/where.h>
#include <torch/library.h>

#include <optional>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

bool renormable(at::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16 || t == at::kComplexFloat ||
         t == at::kComplexDouble;
}

std::optional<at::Tensor> native_renorm(const at::Tensor& self, const at::Scalar& p, int64_t dim,
                                        const at::Scalar& maxnorm) {
  if (!renormable(self.scalar_type()) || p.isComplex() || maxnorm.isComplex()) return std::nullopt;
  TORCH_CHECK(maxnorm.toDouble() >= 0.0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm.toDouble());
  TORCH_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(), " dimensions");
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(p.toDouble() > 0.0, "renorm: non-positive-norm not supported");

  std::vector<int64_t> other_dims;  // the norm of each slice is over all dims but `dim`
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d != wrapped) other_dims.push_back(d);
  }
  const bool reduced = self.scalar_type() == at::kHalf || self.scalar_type() == at::kBFloat16;
  const at::Tensor norm = at::linalg_vector_norm(self, p, other_dims, /*keepdim=*/true,
                                                 reduced ? std::optional<at::ScalarType>(at::kFloat) : std::nullopt);
  const at::Tensor shrink = at::full_like(norm, maxnorm).div_(norm.add(1e-7));
  const at::Tensor factor = at::where(norm.gt(maxnorm), shrink, 1).to(self.scalar_type());
  return self.mul(factor);
}
bool native_renorm_(at::Tensor& self, const at::Scalar& p, int64_t dim, const at::Scalar& maxnorm) {
  const auto result = native_renorm(self, p, dim, maxnorm);
  if (!result.has_value()) return false;
  self.copy_(*result);
  return true;
}
bool native_renorm_out(const at::Tensor& self, const at::Scalar& p, int64_t dim, const at::Scalar& maxnorm,
                       at::Tensor& out) {
  return write_out(native_renorm(self, p, dim, maxnorm), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, renorm, "renorm", launches(), native_renorm);
  HAL_NATIVE(m, renorm_, "renorm_", launches(), native_renorm_);
  HAL_NATIVE(m, renorm_out, "renorm.out", launches(), native_renorm_out);
}

}  // namespace
}  // namespace torch_hal::native
