// Plans of the indexing module (kernels/indexing.cl): INDEX_SELECT of any dtype with int64 or int32 indices, as
// indexing.cu takes it: whole rows along dim 0 of contiguous tensors, any dim and strides otherwise.
#include <cstdint>

#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

bool aligned(const void* p, size_t unit) { return reinterpret_cast<uintptr_t>(p) % unit == 0; }

// dim 0 of contiguous tensors: rows copied in the widest unit that their size and both addresses allow.
// Arguments: (out, self, index, index_stride, index_is_64, rows, units_per_row, self_rows).
Launch rows_launch(const hal_tensor_t& self, const hal_tensor_t& index, const hal_tensor_t& out, int64_t K,
                   int64_t row_bytes) {
  static constexpr struct {
    size_t unit;
    const char* kernel;
  } kUnits[] = {{16, "index_select_rows_b16"}, {8, "index_select_rows_b8"}, {4, "index_select_rows_b4"},
                {2, "index_select_rows_b2"},   {1, "index_select_rows_b1"}};
  const void *a = hal_gpu::element0(self), *b = hal_gpu::element0(out);
  size_t unit = 1;
  const char* kernel = "index_select_rows_b1";
  for (const auto& u : kUnits) {
    if (row_bytes % static_cast<int64_t>(u.unit) == 0 && aligned(a, u.unit) && aligned(b, u.unit)) {
      unit = u.unit;
      kernel = u.kernel;
      break;
    }
  }
  const int64_t units = row_bytes / static_cast<int64_t>(unit);
  Launch l = launch_of(Module::Indexing, kernel);
  add_pointer(&l, out, nullptr);
  add_pointer(&l, self, nullptr);
  add_pointer(&l, index, nullptr);
  l.args.push_back(KernelArg::of_value(index.strides[0]));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(hal_gpu::dtype_of(index.dtype) == hal_gpu::DType::I64)));
  l.args.push_back(KernelArg::of_value(K));
  l.args.push_back(KernelArg::of_value(units));
  l.args.push_back(KernelArg::of_value(self.shape[0]));
  l.global[0] = static_cast<size_t>(K * units);
  return l;
}

}  // namespace

hal_status_t plan_index_select(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                               int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                               std::vector<Launch>* launches) {
  if (num_inputs != 2 || num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t &self = inputs[0], &index = inputs[1], &out = outputs[0];
  const hal_gpu::DType dtype = hal_gpu::dtype_of(self.dtype), index_dtype = hal_gpu::dtype_of(index.dtype);
  const bool index_ok = index_dtype == hal_gpu::DType::I64 || index_dtype == hal_gpu::DType::I32;
  if (self.data == nullptr || index.data == nullptr || out.data == nullptr || self.ndim < 1 ||
      out.ndim != self.ndim || index.ndim != 1 || !index_ok || dtype == hal_gpu::DType::Unsupported ||
      hal_gpu::dtype_of(out.dtype) != dtype) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  int64_t dim = scalar_as_int(scalars[0]);
  if (dim < 0) dim += self.ndim;
  if (dim < 0 || dim >= self.ndim) return HAL_STATUS_NOT_SUPPORTED;
  const int64_t K = index.shape[0];
  for (int32_t d = 0; d < self.ndim; ++d) {
    if (out.shape[d] != (d == dim ? K : self.shape[d])) return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  if (hal_gpu::numel(self) == 0) return HAL_STATUS_NOT_SUPPORTED;
  const int elem = hal_gpu::dtype_size(dtype);
  if (dim == 0 && hal_gpu::is_contiguous(self) && hal_gpu::is_contiguous(out)) {
    launches->push_back(rows_launch(self, index, out, K, n / K * elem));
    return HAL_STATUS_SUCCESS;
  }
  // Any layout: operand 0 out's strides, 1 self's without dim, 2 the index's along dim (kernels/indexing.cl).
  int64_t self_strides[HAL_MAX_DIMS], index_strides[HAL_MAX_DIMS];
  for (int32_t d = 0; d < self.ndim; ++d) {
    self_strides[d] = d == dim ? 0 : self.strides[d];
    index_strides[d] = d == dim ? index.strides[0] : 0;
  }
  StridedLayout layout{};
  const int64_t* strides[3] = {out.strides, self_strides, index_strides};
  if (!merge_dims(out.shape, out.ndim, strides, 3, layout.size, layout.stride, &layout.ndim)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  Launch l = launch_of(Module::Indexing, "index_select_strided");
  add_pointer(&l, out, nullptr);
  add_pointer(&l, self, nullptr);
  add_pointer(&l, index, nullptr);
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(index_dtype == hal_gpu::DType::I64)));
  l.args.push_back(KernelArg::of_value(layout));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l.args.push_back(KernelArg::of_value(self.strides[dim]));
  l.args.push_back(KernelArg::of_value(self.shape[dim]));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(elem)));
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
