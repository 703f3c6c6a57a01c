// Plans of the indexing module (kernels/indexing.cl), as indexing.cu takes the ops, for any dtype with int64 or
// int32 indices: INDEX_SELECT (whole rows along dim 0 of contiguous tensors, any dim and strides otherwise) and
// GATHER through select_strided; SCATTER without reduction and INDEX_PUT without accumulation through put_strided.
// The reductions and accumulations need atomics the SPIR-V kernels lack: NOT_SUPPORTED, the core's fallback.
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

bool is_index_tensor(const hal_tensor_t& t) {
  const hal_gpu::DType d = hal_gpu::dtype_of(t.dtype);
  return t.data != nullptr && (d == hal_gpu::DType::I64 || d == hal_gpu::DType::I32);
}
int32_t is_64(const hal_tensor_t& index) { return hal_gpu::dtype_of(index.dtype) == hal_gpu::DType::I64 ? 1 : 0; }

// select_strided over `walk` (out's shape) with operands out, self (self_strides: 0 along dim) and the index
// (index_strides). Arguments: (out, self, index, index_is_64, layout, n, self_dim_stride, self_dim_size, elem_size,
// wrap).
hal_status_t select_launch(const hal_tensor_t& out, const hal_tensor_t& self, const hal_tensor_t& index, int64_t dim,
                           const int64_t* self_strides, const int64_t* index_strides, bool wrap,
                           std::vector<Launch>* launches) {
  const int64_t n = hal_gpu::numel(out);
  StridedLayout layout{};
  const int64_t* strides[3] = {out.strides, self_strides, index_strides};
  if (!merge_dims(out.shape, out.ndim, strides, 3, layout.size, layout.stride, &layout.ndim)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  Launch l = launch_of(Module::Indexing, "select_strided");
  add_pointer(&l, out, nullptr);
  add_pointer(&l, self, nullptr);
  add_pointer(&l, index, nullptr);
  l.args.push_back(KernelArg::of_value(is_64(index)));
  l.args.push_back(KernelArg::of_value(layout));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l.args.push_back(KernelArg::of_value(self.strides[dim]));
  l.args.push_back(KernelArg::of_value(self.shape[dim]));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(hal_gpu::dtype_size(hal_gpu::dtype_of(self.dtype)))));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(wrap)));
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

// put_strided over the shape `walk` (ndim dims) with operands out (out_strides: 0 along dim), the index
// (index_strides) and the source (src_strides; src null: the scalar whose bytes are value_bits). Arguments: (out,
// index, src, index_is_64, layout, n, out_dim_stride, out_dim_size, elem_size, wrap, src_is_value, value_bits).
hal_status_t put_launch(const int64_t* walk, int32_t ndim, const hal_tensor_t& out, int64_t dim,
                        const int64_t* out_strides, const hal_tensor_t& index, const int64_t* index_strides,
                        const hal_tensor_t* src, const int64_t* src_strides, uint64_t value_bits, bool wrap,
                        std::vector<Launch>* launches) {
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; ++d) n *= walk[d];
  if (n == 0) return HAL_STATUS_SUCCESS;
  const int64_t zeros[HAL_MAX_DIMS] = {};
  StridedLayout layout{};
  const int64_t* strides[3] = {out_strides, index_strides, src ? src_strides : zeros};
  if (!merge_dims(walk, ndim, strides, 3, layout.size, layout.stride, &layout.ndim)) return HAL_STATUS_NOT_SUPPORTED;
  Launch l = launch_of(Module::Indexing, "put_strided");
  add_pointer(&l, out, nullptr);
  add_pointer(&l, index, nullptr);
  add_pointer(&l, src ? *src : out, nullptr);  // never read when the source is the scalar
  l.args.push_back(KernelArg::of_value(is_64(index)));
  l.args.push_back(KernelArg::of_value(layout));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l.args.push_back(KernelArg::of_value(out.strides[dim]));
  l.args.push_back(KernelArg::of_value(out.shape[dim]));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(hal_gpu::dtype_size(hal_gpu::dtype_of(out.dtype)))));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(wrap)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(src == nullptr)));
  l.args.push_back(KernelArg::of_value(value_bits));
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

hal_status_t plan_index_select(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                               int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                               std::vector<Launch>* launches) {
  if (num_inputs != 2 || num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t &self = inputs[0], &index = inputs[1], &out = outputs[0];
  const hal_gpu::DType dtype = hal_gpu::dtype_of(self.dtype);
  if (self.data == nullptr || out.data == nullptr || self.ndim < 1 || out.ndim != self.ndim || index.ndim != 1 ||
      !is_index_tensor(index) || dtype == hal_gpu::DType::Unsupported || hal_gpu::dtype_of(out.dtype) != dtype) {
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
  if (dim == 0 && hal_gpu::is_contiguous(self) && hal_gpu::is_contiguous(out)) {
    launches->push_back(rows_launch(self, index, out, K, n / K * hal_gpu::dtype_size(dtype)));
    return HAL_STATUS_SUCCESS;
  }
  int64_t self_strides[HAL_MAX_DIMS], index_strides[HAL_MAX_DIMS];
  for (int32_t d = 0; d < self.ndim; ++d) {
    self_strides[d] = d == dim ? 0 : self.strides[d];
    index_strides[d] = d == dim ? index.strides[0] : 0;
  }
  return select_launch(out, self, index, dim, self_strides, index_strides, /*wrap=*/true, launches);
}

// GATHER: inputs self, index (self's rank, within self's sizes outside dim); outputs out (index's shape); (s) dim.
hal_status_t plan_gather(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                         int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                         std::vector<Launch>* launches) {
  if (num_inputs != 2 || num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t &self = inputs[0], &index = inputs[1], &out = outputs[0];
  const hal_gpu::DType dtype = hal_gpu::dtype_of(self.dtype);
  if (self.data == nullptr || out.data == nullptr || self.ndim < 1 || index.ndim != self.ndim ||
      !hal_gpu::same_shape(out, index) || !is_index_tensor(index) || dtype == hal_gpu::DType::Unsupported ||
      hal_gpu::dtype_of(out.dtype) != dtype) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  int64_t dim = scalar_as_int(scalars[0]);
  if (dim < 0) dim += self.ndim;
  if (dim < 0 || dim >= self.ndim) return HAL_STATUS_NOT_SUPPORTED;
  int64_t self_strides[HAL_MAX_DIMS];
  for (int32_t d = 0; d < self.ndim; ++d) {
    if (d != dim && index.shape[d] > self.shape[d]) return HAL_STATUS_NOT_SUPPORTED;
    self_strides[d] = d == dim ? 0 : self.strides[d];
  }
  if (hal_gpu::numel(out) == 0) return HAL_STATUS_SUCCESS;
  if (hal_gpu::numel(self) == 0) return HAL_STATUS_NOT_SUPPORTED;
  return select_launch(out, self, index, dim, self_strides, index.strides, /*wrap=*/false, launches);
}

// SCATTER with reduce 0 (set): inputs index, src (index's shape) or a scalar operand; outputs out; (s) [value], dim,
// reduce.
hal_status_t plan_scatter(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                          int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                          std::vector<Launch>* launches) {
  if (num_inputs != 2 || num_outputs != 1 || scalars == nullptr) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t &index = inputs[0], &src = inputs[1], &out = outputs[0];
  const bool scalar_src = hal_gpu::is_scalar_operand(src);
  const int32_t first = scalar_src ? 1 : 0;  // the scalar operand's value comes before the op's own scalars
  if (num_scalars < first + 2 || scalar_as_int(scalars[first + 1]) != 0) return HAL_STATUS_NOT_SUPPORTED;
  const hal_gpu::DType dtype = hal_gpu::dtype_of(out.dtype);
  const bool src_ok = scalar_src || (src.data != nullptr && hal_gpu::same_shape(src, index) &&
                                      hal_gpu::dtype_of(src.dtype) == dtype);
  if (out.data == nullptr || out.ndim < 1 || index.ndim != out.ndim || !is_index_tensor(index) ||
      dtype == hal_gpu::DType::Unsupported || !src_ok) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  int64_t dim = scalar_as_int(scalars[first]);
  if (dim < 0) dim += out.ndim;
  if (dim < 0 || dim >= out.ndim) return HAL_STATUS_NOT_SUPPORTED;
  uint64_t bits = 0;
  if (scalar_src && !scalar_bits(scalars[0], out.dtype, &bits)) return HAL_STATUS_NOT_SUPPORTED;
  int64_t out_strides[HAL_MAX_DIMS];
  for (int32_t d = 0; d < out.ndim; ++d) {
    if (d != dim && index.shape[d] > out.shape[d]) return HAL_STATUS_NOT_SUPPORTED;
    out_strides[d] = d == dim ? 0 : out.strides[d];
  }
  if (hal_gpu::numel(index) == 0) return HAL_STATUS_SUCCESS;
  if (hal_gpu::numel(out) == 0) return HAL_STATUS_NOT_SUPPORTED;
  return put_launch(index.shape, index.ndim, out, dim, out_strides, index, index.strides, scalar_src ? nullptr : &src,
                    src.strides, bits, /*wrap=*/false, launches);
}

// INDEX_PUT without accumulate: inputs index [K], values [K, R...] (broadcast strides allowed); outputs out [V, R...];
// (s) accumulate.
hal_status_t plan_index_put(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                            int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                            std::vector<Launch>* launches) {
  if (num_inputs != 2 || num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  if (scalar_as_int(scalars[0]) != 0) return HAL_STATUS_NOT_SUPPORTED;  // accumulate: atomics
  const hal_tensor_t &index = inputs[0], &values = inputs[1], &out = outputs[0];
  const hal_gpu::DType dtype = hal_gpu::dtype_of(out.dtype);
  if (out.data == nullptr || values.data == nullptr || out.ndim < 1 || values.ndim != out.ndim || index.ndim != 1 ||
      !is_index_tensor(index) || dtype == hal_gpu::DType::Unsupported || hal_gpu::dtype_of(values.dtype) != dtype ||
      values.shape[0] != index.shape[0]) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  int64_t out_strides[HAL_MAX_DIMS], index_strides[HAL_MAX_DIMS];
  for (int32_t d = 0; d < out.ndim; ++d) {
    if (d > 0 && values.shape[d] != out.shape[d]) return HAL_STATUS_NOT_SUPPORTED;
    out_strides[d] = d == 0 ? 0 : out.strides[d];
    index_strides[d] = d == 0 ? index.strides[0] : 0;
  }
  if (hal_gpu::numel(values) == 0) return HAL_STATUS_SUCCESS;
  if (hal_gpu::numel(out) == 0) return HAL_STATUS_NOT_SUPPORTED;
  return put_launch(values.shape, values.ndim, out, 0, out_strides, index, index_strides, &values, values.strides, 0,
                    /*wrap=*/true, launches);
}

}  // namespace

hal_status_t plan_indexing(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                           int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                           std::vector<Launch>* launches) {
  switch (op) {
    case HAL_OP_INDEX_SELECT:
      return plan_index_select(inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case HAL_OP_GATHER: return plan_gather(inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case HAL_OP_SCATTER: return plan_scatter(inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case HAL_OP_INDEX_PUT:
      return plan_index_put(inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace hal_spirv::detail

