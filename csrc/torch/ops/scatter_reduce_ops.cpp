// scatter_reduce and index_reduce (torch_scatter-style aggregations in graph neural networks, MoE token routing)
// from the native SCATTER: the scattered positions start from self, or without include_self from the reduction's
// identity (0, 1, the dtype's lowest or highest value); "sum" and "mean" add, and a mean divides by how many values
// each position received (floor division for integers, as ATen); a bool "sum" is the CPU's logical or, int32 sums
// compared with 0 (bool has no atomic add); "prod", "amax" and "amin" combine by the kernel's compare-and-swap (a
// NaN wins amax and amin, as in ATen). index_reduce is scatter_reduce with its 1-D index broadcast over the
// source's other dims (a stride-0 view, nothing copied).
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/zeros_like.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#include <limits>

#include "dispatch/native_first.h"
#include "ops/indexing_launch.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// The identity of "prod", "amax" or "amin" in self's dtype: what positions start from without include_self.
c10::Scalar identity_of(ScatterReduce reduce, at::ScalarType dtype) {
  if (reduce == ScatterReduce::Multiply) return 1;
  const bool max = reduce == ScatterReduce::Max;
  return AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, dtype, "scatter_reduce identity", [&] {
    using limits = std::numeric_limits<scalar_t>;
    if constexpr (limits::has_infinity) {
      return c10::Scalar(max ? -limits::infinity() : limits::infinity());
    } else {
      return c10::Scalar(max ? limits::lowest() : limits::max());
    }
  });
}

std::optional<at::Tensor> reduced_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                       const at::Tensor& src, c10::string_view reduce, bool include_self) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "scatter_reduce(): Expected dtype int64 for index");
  TORCH_CHECK(self.scalar_type() == src.scalar_type(),
              "scatter_reduce(): Expected self.dtype to be equal to src.dtype");
  TORCH_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  if (self.is_complex()) return std::nullopt;
  at::Tensor out = self.clone(at::MemoryFormat::Preserve);
  if (index.numel() == 0) return out;
  if (reduce == "prod" || reduce == "amax" || reduce == "amin") {
    const ScatterReduce op = reduce == "prod"   ? ScatterReduce::Multiply
                             : reduce == "amax" ? ScatterReduce::Max
                                                : ScatterReduce::Min;
    if (!include_self) out.scatter_(dim, index, identity_of(op, self.scalar_type()));
    if (!scatter_elements(out, at::maybe_wrap_dim(dim, self.dim()), index, &src, nullptr, op)) return std::nullopt;
    return out;
  }
  const bool mean = reduce == "mean";
  if (self.scalar_type() == at::kBool) {
    if (mean) return std::nullopt;  // the CPU refuses it: ATen's error
    // The CPU adds bools, a logical or; the kernel has no atomic add for bool, so the sums are taken in int32.
    at::Tensor sums = self.to(at::kInt);
    if (!include_self) sums.scatter_(dim, index, 0);
    sums.scatter_add_(dim, index, src.to(at::kInt));
    return sums.ne(0);
  }
  if (!include_self) out.scatter_(dim, index, 0);
  out.scatter_add_(dim, index, src);
  if (mean) {
    at::Tensor count = include_self ? at::ones_like(self) : at::zeros_like(self);
    count.scatter_add_(dim, index, at::ones_like(src));
    count.masked_fill_(count.eq(0), 1);  // positions that received nothing keep their value
    if (at::isFloatingType(self.scalar_type())) {
      out.div_(count);
    } else {
      out.div_(count, "floor");
    }
  }
  return out;
}

// index_reduce's 1-D index as scatter_reduce's: index[k] at position k of dim, broadcast over source's shape.
std::optional<at::Tensor> index_reduced_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                             const at::Tensor& source, c10::string_view reduce, bool include_self) {
  TORCH_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_reduce_(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "index_reduce_(): Expected dtype int32/int64 for index");
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "index_reduce_(): self (", self.scalar_type(),
              ") and source (", source.scalar_type(), ") must have the same scalar type");
  if (index.device() != self.device()) return std::nullopt;
  if (self.dim() == 0) {
    // A 0-dim self (and source) is a line of one along dim 0, as ATen's kernel reads it; the index names it.
    at::maybe_wrap_dim(dim, static_cast<int64_t>(0));  // ATen's error for another dim
    if (source.dim() != 0 || index.numel() != 1) return std::nullopt;  // ATen's errors
    const auto line = index_reduced_copy(self.reshape({1}), 0, index.reshape({1}), source.reshape({1}), reduce,
                                         include_self);
    if (!line) return std::nullopt;
    return line->reshape({});
  }
  if (source.dim() != self.dim()) return std::nullopt;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  for (const auto d : c10::irange(self.dim())) {
    if (source.size(d) != (d == wrapped ? index.numel() : self.size(d))) return std::nullopt;  // ATen's error
  }
  std::vector<int64_t> shape(self.dim(), 1);
  shape[wrapped] = index.numel();
  const at::Tensor spread = index.to(at::kLong).reshape(shape).expand(source.sizes());
  return reduced_copy(self, wrapped, spread, source, reduce, include_self);
}

// The in-place forms: self overwritten with the functional result (nothing written where there is none).
bool assign(at::Tensor& self, const std::optional<at::Tensor>& result) {
  if (!result) return false;
  self.copy_(*result);
  return true;
}

std::optional<at::Tensor> native_scatter_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                                const at::Tensor& src, c10::string_view reduce, bool include_self) {
  return reduced_copy(self, dim, index, src, reduce, include_self);
}
bool native_scatter_reduce_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                            c10::string_view reduce, bool include_self) {
  return assign(self, reduced_copy(self, dim, index, src, reduce, include_self));
}
bool native_scatter_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                               c10::string_view reduce, bool include_self, at::Tensor& out) {
  return write_out(reduced_copy(self, dim, index, src, reduce, include_self), out);
}

std::optional<at::Tensor> native_index_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                              const at::Tensor& source, c10::string_view reduce, bool include_self) {
  return index_reduced_copy(self, dim, index, source, reduce, include_self);
}
bool native_index_reduce_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                          c10::string_view reduce, bool include_self) {
  return assign(self, index_reduced_copy(self, dim, index, source, reduce, include_self));
}
bool native_index_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                             c10::string_view reduce, bool include_self, at::Tensor& out) {
  return write_out(index_reduced_copy(self, dim, index, source, reduce, include_self), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, scatter_reduce_two, "scatter_reduce.two", launches(HAL_OP_SCATTER), native_scatter_reduce);
  HAL_NATIVE(m, scatter_reduce__two, "scatter_reduce_.two", launches(HAL_OP_SCATTER), native_scatter_reduce_);
  HAL_NATIVE(m, scatter_reduce_two_out, "scatter_reduce.two_out", launches(HAL_OP_SCATTER),
             native_scatter_reduce_out);
  HAL_NATIVE(m, index_reduce, "index_reduce", launches(HAL_OP_SCATTER), native_index_reduce);
  HAL_NATIVE(m, index_reduce_, "index_reduce_", launches(HAL_OP_SCATTER), native_index_reduce_);
  HAL_NATIVE(m, index_reduce_out, "index_reduce.out", launches(HAL_OP_SCATTER), native_index_reduce_out);
}

}  // namespace
}  // namespace torch_hal::native
