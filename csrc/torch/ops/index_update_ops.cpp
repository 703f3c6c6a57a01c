// index_add, index_copy, index_fill_ (along one dimension) and take / put_ (over the flat tensor): each one launch
// of INDEX_PUT or INDEX_SELECT over a view. Along dimension d, self.movedim(d, 0) is the kernel's [V, R...] output
// and source.movedim(d, 0) its [K, R...] values, with no copy of either.
//
// As everywhere in the indexing kernels, negative indices in [-size, 0) count from the end and out-of-range ones
// are skipped (taken as 0) instead of raising; duplicate indices in index_copy / put_ without accumulate keep one
// of the written values, unspecified which, as on CUDA. A 0-dim self is one row of one element, as in ATen.
// Complex tensors move as the rows of their real views (complex_data_movement.h). A bool self accumulates (index_add,
// put_ with accumulate) as the CPU adds bools, a logical or: the kernel has no atomics for bool, so the sums are
// taken in int32 and compared with 0. Other dtypes the kernel has no atomics for (int8, ...) and other cases the
// kernels refuse take ATen's path.
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <torch/library.h>

#include <optional>

#include "dispatch/native_first.h"
#include "ops/complex_data_movement.h"
#include "ops/indexing_launch.h"

namespace torch_hal::native {
namespace {

// put_rows / select_rows of indexing_launch.h, complex tensors through their real views.
bool put_rows_of(const at::Tensor& out, const at::Tensor& index, const at::Tensor& values, bool accumulate) {
  if (out.is_complex()) return complex_data_movement::put_rows(out, index, values, accumulate);
  return put_rows(out, index, values, accumulate);
}
bool select_rows_of(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  if (self.is_complex()) return complex_data_movement::select_rows(out, self, dim, index);
  return select_rows(out, self, dim, index);
}

// out[..., index[k], ...] (= or +=) values[..., k, ...] along dim; values [..., K, ...] (broadcast strides allowed).
bool put_along(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor& values, bool accumulate);

// The accumulation into a bool `out`: out | (values summed at their rows), summed in int32 (which has atomics),
// written back as a comparison with 0. Nothing is written when the kernel refuses.
bool or_along(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor& values) {
  const at::Tensor sums = out.to(at::kInt);
  if (!put_along(sums, dim, index, values.to(at::kInt), /*accumulate=*/true)) return false;
  out.copy_(sums.ne(0));
  return true;
}

bool put_along(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor& values, bool accumulate) {
  if (accumulate && out.scalar_type() == at::kBool) return or_along(out, dim, index, values);
  // A 0-dim out is one row of one element (ATen's rule for 0-dim tensors along a dim); values then has one too.
  if (out.dim() == 0) return put_rows_of(out.view({1}), index.reshape({-1}), values.reshape({-1}), accumulate);
  at::Tensor rows = values;
  if (rows.is_alias_of(out)) rows = rows.clone();
  at::Tensor flat_index = index.reshape({-1});
  if (flat_index.is_alias_of(out)) flat_index = flat_index.clone();
  return put_rows_of(out.movedim(dim, 0), flat_index, rows.movedim(dim, 0), accumulate);
}

// The checks of index_add / index_copy; false for what ATen should take (0-dim tensors, shapes it may reject or
// broadcast, an index on another device).
bool along_dim_args_ok(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                       const char* name) {
  if (source.dim() != self.dim() || index.device() != self.device()) return false;
  if (self.dim() == 0 && index.numel() != 1) return false;  // ATen's error
  TORCH_CHECK_INDEX(index.dim() <= 1, name, "(): Index is supposed to be a vector");
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), name, "(): self (", self.scalar_type(), ") and source (",
              source.scalar_type(), ") must have the same scalar type");
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t want = d == wrapped ? index.numel() : self.size(d);
    if (source.size(d) != want) return false;
  }
  return true;
}

bool index_add_into(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index,
                    const at::Tensor& source, const at::Scalar& alpha) {
  if (!along_dim_args_ok(self, dim, index, source, "index_add_") || !is_index_type(index)) return false;
  // A floating alpha for an integral self would promote the values: ATen's path (and its error).
  if (!alpha.equal(1) && !c10::isFloatingType(self.scalar_type()) && !c10::isComplexType(self.scalar_type()) &&
      (alpha.isFloatingPoint() || alpha.isComplex())) {
    return false;
  }
  if (self.scalar_type() == at::kBool) {
    // The CPU adds source * alpha in bool: with a false alpha nothing changes.
    if (!alpha.to<bool>()) return has_native_kernels(out.device().index());
    return put_along(out, at::maybe_wrap_dim(dim, self.dim()), index, source, /*accumulate=*/true);
  }
  const at::Tensor values = alpha.equal(1) ? source : source.mul(alpha);
  return put_along(out, at::maybe_wrap_dim(dim, self.dim()), index, values, /*accumulate=*/true);
}

bool index_copy_into(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index,
                     const at::Tensor& source) {
  if (!along_dim_args_ok(self, dim, index, source, "index_copy_")) return false;
  TORCH_CHECK_INDEX(index.scalar_type() == at::kLong, "index_copy_(): Expected a long tensor for index, but got ",
                    index.scalar_type());
  return put_along(out, at::maybe_wrap_dim(dim, self.dim()), index, source, /*accumulate=*/false);
}

// The functional and out= forms copy self into their output first, then update it in place.
at::Tensor copy_of(const at::Tensor& self) { return self.clone(at::MemoryFormat::Preserve); }
// (An out aliasing source or index would be overwritten before they are read: ATen's path.)
bool out_is_separate(const at::Tensor& out, const at::Tensor& index, const at::Tensor& source) {
  return !out.is_alias_of(index) && !out.is_alias_of(source);
}
void start_from(const at::Tensor& self, at::Tensor& out) {
  at::native::resize_output(out, self.sizes());
  if (!out.is_same(self)) out.copy_(self);
}

std::optional<at::Tensor> index_add(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                    const at::Tensor& source, const at::Scalar& alpha) {
  at::Tensor out = copy_of(self);
  if (!index_add_into(out, self, dim, index, source, alpha)) return std::nullopt;
  return out;
}
bool index_add_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                const at::Scalar& alpha) {
  return index_add_into(self, self, dim, index, source, alpha);
}
bool index_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                   const at::Scalar& alpha, at::Tensor& out) {
  if (!along_dim_args_ok(self, dim, index, source, "index_add_") || !is_index_type(index)) return false;
  if (!out_is_separate(out, index, source)) return false;
  start_from(self, out);
  return index_add_into(out, self, dim, index, source, alpha);
}

std::optional<at::Tensor> index_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                     const at::Tensor& source) {
  at::Tensor out = copy_of(self);
  if (!index_copy_into(out, self, dim, index, source)) return std::nullopt;
  return out;
}
bool index_copy_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source) {
  return index_copy_into(self, self, dim, index, source);
}
bool index_copy_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                    at::Tensor& out) {
  if (!along_dim_args_ok(self, dim, index, source, "index_copy_")) return false;
  if (!out_is_separate(out, index, source)) return false;
  start_from(self, out);
  return index_copy_into(out, self, dim, index, source);
}

// self[..., index, ...] = value along dim: the value as a 0-dim tensor of self's dtype, broadcast over the rows.
bool index_fill_with(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& value) {
  if (index.device() != self.device()) return false;
  TORCH_CHECK_INDEX(index.scalar_type() == at::kLong, "index_fill_(): Expected dtype int64 for index.");
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_fill_(): Index is supposed to be a vector");
  if (self.dim() == 0) return put_along(self, 0, index, value.reshape({1}).expand({index.numel()}), false);
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  auto rows_shape = self.sizes().vec();
  rows_shape[wrapped] = index.numel();
  return put_along(self, wrapped, index, value.expand(rows_shape), /*accumulate=*/false);
}
bool index_fill_scalar(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value) {
  return index_fill_with(self, dim, index, at::full({}, value, self.options()));
}
bool index_fill_tensor(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return index_fill_with(self, dim, index, value.to(self.device(), self.scalar_type()));
}

// take / put_: positions in the row-major order of self's elements, i.e. rows of self's flat view.
std::optional<at::Tensor> take(const at::Tensor& self, const at::Tensor& index) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
  at::Tensor out = at::empty(index.sizes(), self.options());
  if (!select_rows_of(out.view({-1}), self.reshape({-1}), 0, index.reshape({-1}))) return std::nullopt;
  return out;
}

bool put_(at::Tensor& self, const at::Tensor& index, const at::Tensor& source, bool accumulate) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "put_(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "put_(): self and source expected to have the same dtype, ",
              "but got self.dtype = ", self.scalar_type(), " and source.dtype = ", source.scalar_type());
  TORCH_CHECK(source.numel() == index.numel(), "put_(): Expected source and index to have the same number of ",
              "elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "put_(): Tried to put elements into an empty tensor");
  // A bool self accumulates into an int32 copy, which has a flat view whatever self's layout.
  if (accumulate && self.scalar_type() == at::kBool) {
    const at::Tensor sums = self.to(at::kInt).contiguous();
    if (!put_along(sums.view({-1}), 0, index, source.reshape({-1}).to(at::kInt), /*accumulate=*/true)) return false;
    self.copy_(sums.ne(0));
    return true;
  }
  // A non-contiguous self has no flat view to write through: ATen's path.
  if (!self.is_contiguous()) return false;
  return put_along(self.view({-1}), 0, index, source.reshape({-1}), accumulate);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, index_add, "index_add", launches(HAL_OP_INDEX_PUT), index_add);
  HAL_NATIVE(m, index_add_, "index_add_", launches(HAL_OP_INDEX_PUT), index_add_);
  HAL_NATIVE(m, index_add_out, "index_add.out", launches(HAL_OP_INDEX_PUT), index_add_out);
  HAL_NATIVE(m, index_copy, "index_copy", launches(HAL_OP_INDEX_PUT), index_copy);
  HAL_NATIVE(m, index_copy_, "index_copy_", launches(HAL_OP_INDEX_PUT), index_copy_);
  HAL_NATIVE(m, index_copy_out, "index_copy.out", launches(HAL_OP_INDEX_PUT), index_copy_out);
  HAL_NATIVE(m, index_fill__int_Scalar, "index_fill_.int_Scalar", launches(HAL_OP_INDEX_PUT), index_fill_scalar);
  HAL_NATIVE(m, index_fill__int_Tensor, "index_fill_.int_Tensor", launches(HAL_OP_INDEX_PUT), index_fill_tensor);
  HAL_NATIVE(m, take, "take", launches(HAL_OP_INDEX_SELECT), take);
  HAL_NATIVE(m, put_, "put_", launches(HAL_OP_INDEX_PUT), put_);
}

}  // namespace
}  // namespace torch_hal::native
