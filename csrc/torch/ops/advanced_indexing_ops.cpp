// x[indices] (index.Tensor) and x[indices] = v / index_put_ (_index_put_impl_) in ATen's generality: several
// index tensors broadcast together, None gaps (x[:, idx], x[i, :, j]), bool/uint8 masks, negative indices, index
// tensors on the CPU. Each is one INDEX_SELECT / INDEX_PUT launch over a view of self.
//
// The recipe: the indexed dimensions of self collapse into one "offset" dimension of an as_strided view of self's
// storage (stride 1, size: the largest element offset they reach + 1), and the index tensors into one linear index,
// the element offset sum_k idx_k * stride_k. The view keeps every other dimension with its own stride, so nothing
// of self is copied whatever its layout (merging the indexed dimensions by reshape would copy unless they happen to
// be mergeable). ATen's result layout: when the indexed dimensions are adjacent, the broadcast index shape replaces
// them in place, else it goes first; the offset dimension sits at that place, so the kernel's output, viewed, is
// the result.
//
// Masks become index tensors through nonzero: one device synchronization for the count, as on CUDA (a mask on the
// CPU is resolved on the CPU, with none). With one index tensor the kernels wrap negative indices and skip
// out-of-range ones themselves; with several, each is wrapped here, and a tuple with an index out of range gets an
// offset out of range, so it too reads as 0 / is skipped (CUDA asserts, the CPU raises: neither can be done here
// without a synchronization). Complex tensors go through their real views (complex_data_movement.h); a bool self
// accumulates as a logical or, through int32 sums.
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/nonzero.h>
#include <torch/library.h>

#include <optional>
#include <sstream>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/complex_data_movement.h"
#include "ops/indexing_launch.h"

namespace torch_hal::native {
namespace {

// The index of one dimension of self, on self's device; undefined when the dimension is not indexed. `in_range`:
// it came from a mask, so it needs no wrapping or range check.
struct DimIndex {
  at::Tensor index;
  bool in_range = false;
};

// One entry per dimension of self: masks expanded into one index per dimension they cover, trailing dimensions
// not indexed. nullopt for x[True]-style 0-dim masks (which add a dimension): ATen's path.
std::optional<std::vector<DimIndex>> per_dim_indices(const at::Tensor& self,
                                                    const c10::List<std::optional<at::Tensor>>& indices) {
  std::vector<DimIndex> out;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<at::Tensor> entry = indices.get(i);
    if (!entry.has_value() || !entry->defined()) {
      out.emplace_back();
      continue;
    }
    at::Tensor index = *entry;
    const at::ScalarType type = index.scalar_type();
    if (type == at::kByte || type == at::kBool) {
      if (index.dim() == 0) return std::nullopt;
      if (type == at::kByte) {
        TORCH_WARN("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.");
        index = index.to(at::kBool);
      }
      const int64_t first = static_cast<int64_t>(out.size());
      TORCH_CHECK_INDEX(first + index.dim() <= self.dim(), "too many indices for tensor of dimension ", self.dim(),
                        " (got ", first + index.dim(), ")");
      for (int64_t j = 0; j < index.dim(); ++j) {
        TORCH_CHECK_INDEX(index.size(j) == self.size(first + j), "The shape of the mask ", index.sizes(), " at index ",
                          j, " does not match the shape of the indexed tensor ", self.sizes(), " at index ", first + j);
      }
      const at::Tensor coords = at::nonzero(index).to(self.device());
      for (int64_t j = 0; j < index.dim(); ++j) out.push_back({coords.select(1, j), true});
    } else {
      TORCH_CHECK_INDEX(type == at::kLong || type == at::kInt,
                        "tensors used as indices must be long, int, byte or bool tensors");
      out.push_back({index.device() == self.device() ? index : index.to(self.device()), false});
    }
  }
  TORCH_CHECK_INDEX(static_cast<int64_t>(out.size()) <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim(), " (got ", out.size(), ")");
  out.resize(self.dim());
  return out;
}

// The shape the index tensors broadcast to, with ATen's IndexError when they do not.
std::vector<int64_t> broadcast_index_shape(const std::vector<DimIndex>& per_dim) {
  std::vector<int64_t> shape;
  for (const DimIndex& d : per_dim) {
    if (!d.index.defined()) continue;
    const at::IntArrayRef sizes = d.index.sizes();
    if (sizes.size() > shape.size()) shape.insert(shape.begin(), sizes.size() - shape.size(), 1);
    const size_t lead = shape.size() - sizes.size();
    for (size_t j = 0; j < sizes.size(); ++j) {
      int64_t& s = shape[lead + j];
      if (s == 1) {
        s = sizes[j];
      } else if (sizes[j] != 1 && sizes[j] != s) {
        std::ostringstream shapes;
        const char* sep = "";
        for (const DimIndex& e : per_dim) {
          if (e.index.defined()) shapes << sep << e.index.sizes(), sep = ", ";
        }
        TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                          shapes.str());
      }
    }
  }
  return shape;
}

struct IndexPlan {
  at::Tensor source;                  // self, or the as_strided view of its storage with the offset dimension
  int64_t dim = 0;                    // the dimension of `source` that `index` runs along
  at::Tensor index;                   // [K] int64 / int32: positions along source's `dim`
  std::vector<int64_t> result_shape;  // source's shape with `dim` replaced by the broadcast index shape
};

// The linear index over several indexed dimensions: each index wrapped Python-style, times its dimension's stride,
// summed (broadcasting); a tuple with an index out of its dimension's range gets -(extent + 1), out of range of the
// offset dimension even after the kernel's own wrapping.
at::Tensor linear_offsets(const at::Tensor& self, const std::vector<DimIndex>& per_dim, const std::vector<int64_t>& dims,
                          int64_t extent) {
  at::Tensor linear, out_of_range;
  for (const int64_t d : dims) {
    const at::Tensor index = per_dim[d].index.to(at::kLong);
    const int64_t size = self.size(d), stride = self.stride(d);
    at::Tensor wrapped = index;
    if (!per_dim[d].in_range) {
      at::Tensor clamped = index.clamp(-size, size - 1);
      const at::Tensor bad = clamped.ne(index);
      out_of_range = out_of_range.defined() ? out_of_range.logical_or(bad) : bad;
      wrapped = clamped.remainder_(size);
    }
    linear = linear.defined() ? linear.add(wrapped, stride) : wrapped.mul(stride);
  }
  if (out_of_range.defined()) linear.masked_fill_(out_of_range, -(extent + 1));
  return linear;
}

std::optional<IndexPlan> plan_index(const at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices) {
  if (self.dim() == 0) return std::nullopt;
  std::optional<std::vector<DimIndex>> per_dim = per_dim_indices(self, indices);
  if (!per_dim.has_value()) return std::nullopt;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if ((*per_dim)[d].index.defined()) dims.push_back(d);
  }
  if (dims.empty()) return std::nullopt;
  const std::vector<int64_t> index_shape = broadcast_index_shape(*per_dim);
  IndexPlan plan;
  if (dims.size() == 1) {
    // One indexed dimension: self itself, the index as given (the kernels wrap negative indices).
    plan.source = self;
    plan.dim = dims[0];
    plan.index = (*per_dim)[dims[0]].index.reshape({-1});
  } else {
    // Any index into an empty dimension is out of range: ATen's IndexError.
    for (const int64_t d : dims) {
      if (self.size(d) == 0) return std::nullopt;
    }
    const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
    int64_t extent = 1;
    for (const int64_t d : dims) extent += (self.size(d) - 1) * self.stride(d);
    std::vector<int64_t> sizes, strides;
    for (int64_t d = 0; d < self.dim(); ++d) {
      if ((*per_dim)[d].index.defined()) continue;
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
    }
    plan.dim = adjacent ? dims.front() : 0;
    sizes.insert(sizes.begin() + plan.dim, extent);
    strides.insert(strides.begin() + plan.dim, 1);
    plan.source = self.as_strided(sizes, strides, self.storage_offset());
    plan.index = linear_offsets(self, *per_dim, dims, extent).expand(index_shape).reshape({-1});
  }
  plan.result_shape = plan.source.sizes().vec();
  plan.result_shape.erase(plan.result_shape.begin() + plan.dim);
  plan.result_shape.insert(plan.result_shape.begin() + plan.dim, index_shape.begin(), index_shape.end());
  return plan;
}

std::optional<at::Tensor> index_tensor(const at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices) {
  if (self.is_complex()) return complex_data_movement::index(self, indices);
  const std::optional<IndexPlan> plan = plan_index(self, indices);
  if (!plan.has_value()) return std::nullopt;
  auto sizes = plan->source.sizes().vec();
  sizes[plan->dim] = plan->index.numel();
  at::Tensor out = at::empty(sizes, self.options());
  if (!select_rows(out, plan->source, plan->dim, plan->index)) return std::nullopt;
  return out.view(plan->result_shape);
}

bool index_put_impl(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices, const at::Tensor& values,
                    bool accumulate, bool unsafe);

// x[indices] += v for a bool x: the CPU adds bools, a logical or. The kernel has no atomics for bool, so the sums
// are taken in an int32 copy of self and written back as a comparison with 0 (an index or mask aliasing self is
// read from self, which is unchanged until then).
bool index_put_or(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices, const at::Tensor& values,
                  bool unsafe) {
  if (values.scalar_type() != at::kBool) return false;  // ATen's error
  at::assert_no_internal_overlap(self);
  at::Tensor sums = self.to(at::kInt);
  if (!index_put_impl(sums, indices, values.to(at::kInt), /*accumulate=*/true, unsafe)) return false;
  self.copy_(sums.ne(0));
  return true;
}

bool index_put_impl(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices, const at::Tensor& values,
                    bool accumulate, bool unsafe) {
  if (self.is_complex()) return complex_data_movement::index_put_impl(self, indices, values, accumulate, unsafe);
  if (accumulate && self.scalar_type() == at::kBool) return index_put_or(self, indices, values, unsafe);
  const std::optional<IndexPlan> plan = plan_index(self, indices);
  if (!plan.has_value()) return false;
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), "Index put requires the source and destination dtypes match, got ",
              self.scalar_type(), " for the destination and ", values.scalar_type(), " for the source.");
  TORCH_CHECK(at::is_expandable_to(values.sizes(), plan->result_shape), "shape mismatch: value tensor of shape ",
              values.sizes(), " cannot be broadcast to indexing result of shape ", at::IntArrayRef(plan->result_shape));
  at::assert_no_internal_overlap(self);  // ATen's error for an expanded self (one element written twice)
  const int64_t count = plan->index.numel();
  if (count == 0 || self.numel() == 0) return has_native_kernels(self.device().index());
  // A value given as a CPU scalar tensor comes over first. Values or an index that alias self (x[idx] = x[j])
  // would be read while self is written: copied first.
  at::Tensor on_device = values.device() == self.device() ? values : values.to(self.device());
  if (on_device.is_alias_of(self)) on_device = on_device.clone();
  at::Tensor index = plan->index;
  if (index.is_alias_of(self)) index = index.clone();
  // The values over the result's shape, the broadcast index dimensions merged into one of K rows, moved first to
  // face the rows of source.movedim(dim, 0).
  auto rows_shape = plan->source.sizes().vec();
  rows_shape[plan->dim] = count;
  const at::Tensor rows = on_device.expand(plan->result_shape).reshape(rows_shape).movedim(plan->dim, 0);
  return put_rows(plan->source.movedim(plan->dim, 0), index, rows, accumulate);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, index_Tensor, "index.Tensor", launches(HAL_OP_INDEX_SELECT), index_tensor);
  HAL_NATIVE(m, _index_put_impl_, "_index_put_impl_", launches(HAL_OP_INDEX_PUT), index_put_impl);
}

}  // namespace
}  // namespace torch_hal::native
