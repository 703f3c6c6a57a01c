// The two row kernels that every indexing op here is built on, shared by indexing_ops.cpp (index_select),
// advanced_indexing_ops.cpp (x[...], x[...] = v), nonzero_ops.cpp and index_update_ops.cpp:
//   select_rows: out = self.index_select(dim, index)      (HAL_OP_INDEX_SELECT)
//   put_rows:    out[index[k], ...] (= or +=) values[k, ...] (HAL_OP_INDEX_PUT)
//   scatter_elements: out[..., index[...], ...] (=, +=, *=, max=, min=) src[...] along dim  (HAL_OP_SCATTER)
// select_rows and put_rows wrap indices in [-size, 0) Python-style; an index out of range reads as 0 / is skipped (the kernels
// cannot raise without a device synchronization, see vendor_adapters/gpu_kernels/kernels/indexing.cu).
#pragma once

#include <ATen/core/Tensor.h>

#include "dispatch/native_launch.h"

namespace torch_hal::native {

inline bool is_index_type(const at::Tensor& t) { return t.scalar_type() == at::kLong || t.scalar_type() == at::kInt; }

// out = self.index_select(dim, index): index [K] int64/int32 on self's device, out of self's shape with dim
// resized to K. False when the adapter has no kernel (nothing written).
inline bool select_rows(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  if (out.numel() == 0) return has_native_kernels(self.device().index());
  KernelArgs args;
  args.input(self).input(index).output(out).scalar(dim);
  return launch(self.device().index(), HAL_OP_INDEX_SELECT, args);
}

// out [V, R...] (any strides, e.g. self.movedim(d, 0) or an as_strided view) gets values[k, R...] at row
// index[k]; values has shape [K, R...] or broadcast strides. index is converted to int64 (the kernel's type).
// False when the adapter has no kernel for it (e.g. accumulating a dtype without atomics): nothing written.
inline bool put_rows(const at::Tensor& out, const at::Tensor& index, const at::Tensor& values, bool accumulate) {
  if (index.numel() == 0 || out.numel() == 0) return has_native_kernels(out.device().index());
  const at::Tensor index64 = index.scalar_type() == at::kLong ? index : index.to(at::kLong);
  KernelArgs args;
  args.input(index64).input(values).output(out).scalar(static_cast<int64_t>(accumulate ? 1 : 0));
  return launch(out.device().index(), HAL_OP_INDEX_PUT, args);
}

// ATen treats a 0-dim tensor in gather and scatter as 1-D of one element (ensure_nonempty_dim): the kernels see it
// so, through a [1] view of the same storage.
inline at::Tensor at_least_1d(const at::Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// SCATTER's reduce scalar (adapter_ops.def).
enum class ScatterReduce : int64_t { Set = 0, Add = 1, Multiply = 2, Max = 3, Min = 4 };

// out gets src[...] (index's shape read from src, or the scalar `value` when src is null) at index[...] along dim,
// combined by `reduce`; 0-dim operands count as 1-D of one element. The caller checked the shapes and dtypes as
// ATen does. False when the adapter has no kernel for it (e.g. a reduction its dtype lacks an atomic for): nothing
// written.
inline bool scatter_elements(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor* src,
                             const c10::Scalar* value, ScatterReduce reduce) {
  const at::Tensor target = at_least_1d(out), positions = at_least_1d(index);
  const at::Tensor source = src ? at_least_1d(*src) : at::Tensor();
  KernelArgs args;
  args.input(positions);
  if (src) args.input_as(source, positions.sizes(), source.strides());
  else args.scalar_input(*value, out.scalar_type());
  args.output(target).scalar(dim).scalar(static_cast<int64_t>(reduce));
  return launch(out.device().index(), HAL_OP_SCATTER, args);
}

}  // namespace torch_hal::native
