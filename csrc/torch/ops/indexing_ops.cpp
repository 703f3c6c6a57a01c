// index_select, gather, scatter / scatter_add (functional and in place) over the adapter's indexing kernels;
// complex tensors through their real views (complex_data_movement.h).
// Advanced indexing (x[...], index_put_) lives in advanced_indexing_ops.cpp. Indices cannot be range-checked
// without a device synchronization: the kernels never touch memory out of bounds, but an out-of-range index
// reads as 0 / is skipped instead of raising (kernels/indexing.cu).
#include <ATen/WrapDimUtils.h>
#include <ATen/native/ScatterGatherChecks.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/complex_data_movement.h"
#include "ops/indexing_launch.h"

namespace torch_hal::native {
namespace {

// select_rows of indexing_launch.h, complex tensors through their real views.
bool select_rows_of(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  if (self.is_complex()) return complex_data_movement::select_rows(out, self, dim, index);
  return select_rows(out, self, dim, index);
}

std::optional<at::Tensor> index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(is_index_type(index), "index_select(): Expected dtype int32 or int64 for index");
  if (self.dim() == 0) {  // a 0-dim result of the one element an index of one element selects (else ATen's error)
    if (index.numel() != 1) return std::nullopt;
    at::Tensor out = at::empty({}, self.options());
    if (!select_rows_of(out.view({1}), self.view({1}), 0, index.reshape({-1}))) return std::nullopt;
    return out;
  }
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  const at::Tensor flat = index.reshape({-1});
  auto sizes = self.sizes().vec();
  sizes[wrapped] = flat.numel();
  at::Tensor out = at::empty(sizes, self.options());
  if (!select_rows_of(out, self, wrapped, flat)) return std::nullopt;
  return out;
}

std::optional<at::Tensor> gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool sparse_grad) {
  if (self.is_complex()) return complex_data_movement::gather(self, dim, index, sparse_grad);
  if (sparse_grad) return std::nullopt;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  // An empty index gathers nothing, whatever its shape: ATen checks neither its dtype nor its shape then.
  if (index.numel() == 0) return at::empty(index.sizes(), self.options());
  at::native::scatter_gather_dtype_check("gather", self, index, std::nullopt);
  at::native::gather_shape_check(self, wrapped, index);
  at::Tensor out = at::empty(index.sizes(), self.options());
  if (out.numel() == 0) return out;
  const at::Tensor source = at_least_1d(self), positions = at_least_1d(index), result = at_least_1d(out);
  KernelArgs args;
  args.input(source).input(positions).output(result).scalar(wrapped);
  if (!launch(self.device().index(), HAL_OP_GATHER, args)) return std::nullopt;
  return out;
}

// self[..., index, ...] (= or +=) src / value along dim, in place. src is read over index's shape only.
bool scatter_into(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor* src,
                  const c10::Scalar* value, ScatterReduce reduce, const char* name) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  at::native::scatter_gather_dtype_check(name, self, index,
                                         src ? std::optional<at::Tensor>(*src) : std::optional<at::Tensor>());
  at::native::scatter_shape_check(self, wrapped, index,
                                  src ? std::optional<at::Tensor>(*src) : std::optional<at::Tensor>());
  if (index.numel() == 0) return has_native_kernels(self.device().index());
  if (self.is_complex()) return complex_data_movement::scatter_elements(self, wrapped, index, src, value, reduce);
  return scatter_elements(self, wrapped, index, src, value, reduce);
}

std::optional<at::Tensor> scatter_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                       const at::Tensor* src, const c10::Scalar* value, ScatterReduce reduce,
                                       const char* name) {
  at::Tensor out = self.clone(at::MemoryFormat::Preserve);
  if (!scatter_into(out, dim, index, src, value, reduce, name)) return std::nullopt;
  return out;
}

std::optional<at::Tensor> scatter_src(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                      const at::Tensor& src) {
  return scatter_copy(self, dim, index, &src, nullptr, ScatterReduce::Set, "scatter");
}
bool scatter_src_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  return scatter_into(self, dim, index, &src, nullptr, ScatterReduce::Set, "scatter");
}
std::optional<at::Tensor> scatter_value(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                        const at::Scalar& value) {
  return scatter_copy(self, dim, index, nullptr, &value, ScatterReduce::Set, "scatter");
}
bool scatter_value_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value) {
  return scatter_into(self, dim, index, nullptr, &value, ScatterReduce::Set, "scatter");
}
std::optional<at::Tensor> scatter_add(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                      const at::Tensor& src) {
  return scatter_copy(self, dim, index, &src, nullptr, ScatterReduce::Add, "scatter_add");
}
bool scatter_add_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  return scatter_into(self, dim, index, &src, nullptr, ScatterReduce::Add, "scatter_add");
}

// The legacy reduce argument of scatter (scatter_reduce_ is the general form): "add" or "multiply".
ScatterReduce legacy_reduce(c10::string_view reduce) {
  if (reduce == "add") return ScatterReduce::Add;
  TORCH_CHECK(reduce == "multiply", "reduce argument must be either add or multiply.");
  return ScatterReduce::Multiply;
}
std::optional<at::Tensor> scatter_reduce_src(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                             const at::Tensor& src, c10::string_view reduce) {
  return scatter_copy(self, dim, index, &src, nullptr, legacy_reduce(reduce), "scatter");
}
bool scatter_reduce_src_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                         c10::string_view reduce) {
  return scatter_into(self, dim, index, &src, nullptr, legacy_reduce(reduce), "scatter");
}
std::optional<at::Tensor> scatter_reduce_value(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                               const at::Scalar& value, c10::string_view reduce) {
  return scatter_copy(self, dim, index, nullptr, &value, legacy_reduce(reduce), "scatter");
}
bool scatter_reduce_value_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value,
                           c10::string_view reduce) {
  return scatter_into(self, dim, index, nullptr, &value, legacy_reduce(reduce), "scatter");
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, index_select, "index_select", launches(HAL_OP_INDEX_SELECT), index_select);
  HAL_NATIVE(m, gather, "gather", launches(HAL_OP_GATHER), gather);
  HAL_NATIVE(m, scatter_src, "scatter.src", launches(HAL_OP_SCATTER), scatter_src);
  HAL_NATIVE(m, scatter__src, "scatter_.src", launches(HAL_OP_SCATTER), scatter_src_);
  HAL_NATIVE(m, scatter_value, "scatter.value", launches(HAL_OP_SCATTER), scatter_value);
  HAL_NATIVE(m, scatter__value, "scatter_.value", launches(HAL_OP_SCATTER), scatter_value_);
  HAL_NATIVE(m, scatter_add, "scatter_add", launches(HAL_OP_SCATTER), scatter_add);
  HAL_NATIVE(m, scatter_add_, "scatter_add_", launches(HAL_OP_SCATTER), scatter_add_);
  HAL_NATIVE(m, scatter_reduce, "scatter.reduce", launches(HAL_OP_SCATTER), scatter_reduce_src);
  HAL_NATIVE(m, scatter__reduce, "scatter_.reduce", launches(HAL_OP_SCATTER), scatter_reduce_src_);
  HAL_NATIVE(m, scatter_value_reduce, "scatter.value_reduce", launches(HAL_OP_SCATTER), scatter_reduce_value);
  HAL_NATIVE(m, scatter__value_reduce, "scatter_.value_reduce", launches(HAL_OP_SCATTER), scatter_reduce_value_);
}

}  // namespace
}  // namespace torch_hal::native
