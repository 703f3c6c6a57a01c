// torch.isin on hal from native comparisons and reductions: each element against every test element
// ((elements[..., None] == test_elements.flatten()).any(-1), as ATen's default kernel does for small test sets),
// in chunks whose comparison matrix stays under kMaxCompared booleans. transformers' generate() asks it at every
// step (which tokens end a sequence) with a handful of test elements.
//
// The comparisons grow as elements x test elements; past kMaxWork of them (large test sets against many
// elements, where ATen sorts), and for dtypes isin refuses (bool, complex: ATen raises its error), the op takes
// its usual route.
#include <ATen/ops/any.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ne.h>
#include <torch/library.h>

#include <algorithm>
#include <optional>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

constexpr int64_t kMaxCompared = int64_t{1} << 24;  // booleans of one chunk's comparison matrix (16 MiB)
constexpr int64_t kMaxWork = int64_t{1} << 34;      // comparisons of one call

bool comparable(at::ScalarType t) { return t != at::kBool && !at::isComplexType(t); }

std::optional<at::Tensor> isin_tensors(const at::Tensor& elements, const at::Tensor& test_elements, bool assume_unique,
                                       bool invert) {
  (void)assume_unique;  // a hint for ATen's sorting route; the comparisons need no uniqueness
  if (!comparable(elements.scalar_type()) || !comparable(test_elements.scalar_type())) return std::nullopt;
  if (test_elements.device() != elements.device() && !(test_elements.dim() == 0 && test_elements.is_cpu())) {
    return std::nullopt;
  }
  const int64_t n = elements.numel(), m = test_elements.numel();
  if (m > 0 && n > kMaxWork / m) return std::nullopt;
  at::Tensor out = at::empty(elements.sizes(), elements.options().dtype(at::kBool));
  if (n == 0) return out;
  if (m == 0) return out.fill_(invert);
  const at::Tensor tests = test_elements.reshape({m});
  const at::Tensor flat_out = out.view({n});
  const at::Tensor flat_in = elements.reshape({n, 1});
  const int64_t chunk = std::max<int64_t>(1, kMaxCompared / m);
  for (int64_t begin = 0; begin < n; begin += chunk) {
    const int64_t end = std::min(n, begin + chunk);
    at::Tensor found = at::eq(flat_in.slice(0, begin, end), tests).any(1);
    if (invert) found.logical_not_();
    flat_out.slice(0, begin, end).copy_(found);
  }
  return out;
}

std::optional<at::Tensor> isin_tensor_scalar(const at::Tensor& elements, const at::Scalar& test_element,
                                             bool assume_unique, bool invert) {
  (void)assume_unique;
  if (!comparable(elements.scalar_type()) || test_element.isBoolean() || test_element.isComplex()) return std::nullopt;
  return invert ? at::ne(elements, test_element) : at::eq(elements, test_element);
}

std::optional<at::Tensor> isin_scalar_tensor(const at::Scalar& element, const at::Tensor& test_elements,
                                             bool assume_unique, bool invert) {
  (void)assume_unique;
  if (!comparable(test_elements.scalar_type()) || element.isBoolean() || element.isComplex()) return std::nullopt;
  at::Tensor found = at::eq(test_elements, element).any();
  return invert ? found.logical_not_() : found;
}

bool isin_tensors_out(const at::Tensor& e, const at::Tensor& t, bool u, bool i, at::Tensor& out) {
  return write_out(isin_tensors(e, t, u, i), out);
}
bool isin_tensor_scalar_out(const at::Tensor& e, const at::Scalar& t, bool u, bool i, at::Tensor& out) {
  return write_out(isin_tensor_scalar(e, t, u, i), out);
}
bool isin_scalar_tensor_out(const at::Scalar& e, const at::Tensor& t, bool u, bool i, at::Tensor& out) {
  return write_out(isin_scalar_tensor(e, t, u, i), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, isin_Tensor_Tensor, "isin.Tensor_Tensor", launches(), isin_tensors);
  HAL_NATIVE(m, isin_Tensor_Tensor_out, "isin.Tensor_Tensor_out", launches(), isin_tensors_out);
  HAL_NATIVE(m, isin_Tensor_Scalar, "isin.Tensor_Scalar", launches(), isin_tensor_scalar);
  HAL_NATIVE(m, isin_Tensor_Scalar_out, "isin.Tensor_Scalar_out", launches(), isin_tensor_scalar_out);
  HAL_NATIVE(m, isin_Scalar_Tensor, "isin.Scalar_Tensor", launches(), isin_scalar_tensor);
  HAL_NATIVE(m, isin_Scalar_Tensor_out, "isin.Scalar_Tensor_out", launches(), isin_scalar_tensor_out);
}

}  // namespace
}  // namespace torch_hal::native
