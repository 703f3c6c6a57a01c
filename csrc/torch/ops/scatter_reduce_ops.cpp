// scatter_reduce with "sum" and "mean" (torch_scatter-style aggregations in graph neural networks, MoE token
// routing) from the native scatter and scatter_add: the scattered positions start from self, or from zero without
// include_self, and a mean divides by how many values each position received (floor division for integers, as
// ATen). "prod", "amax" and "amin" need an atomic the kernels do not have: ATen's route.
#include <ATen/ops/ones_like.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

std::optional<at::Tensor> reduced_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                       const at::Tensor& src, c10::string_view reduce, bool include_self) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "scatter_reduce(): Expected dtype int64 for index");
  TORCH_CHECK(self.scalar_type() == src.scalar_type(),
              "scatter_reduce(): Expected self.dtype to be equal to src.dtype");
  const bool mean = reduce == "mean";
  if ((reduce != "sum" && !mean) || self.is_complex() || self.scalar_type() == at::kBool) return std::nullopt;
  at::Tensor out = self.clone(at::MemoryFormat::Preserve);
  if (index.numel() == 0) return out;
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

std::optional<at::Tensor> native_scatter_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                                const at::Tensor& src, c10::string_view reduce, bool include_self) {
  return reduced_copy(self, dim, index, src, reduce, include_self);
}
bool native_scatter_reduce_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                            c10::string_view reduce, bool include_self) {
  const std::optional<at::Tensor> result = reduced_copy(self, dim, index, src, reduce, include_self);
  if (!result) return false;
  self.copy_(*result);
  return true;
}
bool native_scatter_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                               c10::string_view reduce, bool include_self, at::Tensor& out) {
  return write_out(reduced_copy(self, dim, index, src, reduce, include_self), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, scatter_reduce_two, "scatter_reduce.two", launches(), native_scatter_reduce);
  HAL_NATIVE(m, scatter_reduce__two, "scatter_reduce_.two", launches(), native_scatter_reduce_);
  HAL_NATIVE(m, scatter_reduce_two_out, "scatter_reduce.two_out", launches(), native_scatter_reduce_out);
}

}  // namespace
}  // namespace torch_hal::native
