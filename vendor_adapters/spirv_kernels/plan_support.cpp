#include "plan_support.h"

#include "kernels/tensor_operands.h"

namespace hal_spirv::detail {

bool is_float32(const hal_tensor_t& t) { return hal_gpu::dtype_of(t.dtype) == hal_gpu::DType::F32; }

bool is_float32_tensor(const hal_tensor_t& t) { return t.data != nullptr && t.ndim >= 0 && is_float32(t); }

bool same_shape(const hal_tensor_t& a, const hal_tensor_t& b) {
  if (a.ndim != b.ndim) return false;
  for (int32_t d = 0; d < a.ndim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
  }
  return true;
}

bool element_type_of(const hal_tensor_t& t, int32_t* type) {
  switch (hal_gpu::dtype_of(t.dtype)) {
    case hal_gpu::DType::F32: *type = kF32; return true;
    case hal_gpu::DType::Bool: *type = kBool; return true;
    case hal_gpu::DType::U8: *type = kU8; return true;
    case hal_gpu::DType::I8: *type = kI8; return true;
    case hal_gpu::DType::I16: *type = kI16; return true;
    case hal_gpu::DType::I32: *type = kI32; return true;
    case hal_gpu::DType::I64: *type = kI64; return true;
    case hal_gpu::DType::F16: *type = kF16; return true;
    case hal_gpu::DType::BF16: *type = kBF16; return true;
    case hal_gpu::DType::F64: *type = kF64; return true;
    default: return false;
  }
}

int floating_index(hal_gpu::DType d) {
  switch (d) {
    case hal_gpu::DType::F32: return 0;
    case hal_gpu::DType::F16: return 1;
    case hal_gpu::DType::BF16: return 2;
    case hal_gpu::DType::F64: return 3;
    default: return -1;
  }
}

bool is_float_type(int32_t type) { return type == kF32 || type == kF16 || type == kBF16; }

bool merge_dims(const int64_t* shape, int32_t ndim, const int64_t* const* strides, int count, int64_t* size,
                int64_t (*stride)[kMaxDims], int32_t* merged_ndim) {
  // Innermost first: a dim joins the one inside it where, for every operand, stepping once along it is
  // stepping the inner dim's whole extent.
  int32_t n = 0;
  int64_t inner_size[HAL_MAX_DIMS];
  int64_t inner_stride[4][HAL_MAX_DIMS];
  for (int32_t d = ndim - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    bool joins = n > 0;
    for (int k = 0; k < count && joins; ++k) {
      const int64_t s = strides[k] ? strides[k][d] : 0;
      joins = s == inner_stride[k][n - 1] * inner_size[n - 1];
    }
    if (joins) {
      inner_size[n - 1] *= shape[d];
      continue;
    }
    inner_size[n] = shape[d];
    for (int k = 0; k < count; ++k) inner_stride[k][n] = strides[k] ? strides[k][d] : 0;
    ++n;
  }
  if (n > kMaxDims) return false;
  for (int32_t i = 0; i < n; ++i) {  // back to outermost first
    size[i] = inner_size[n - 1 - i];
    for (int k = 0; k < count; ++k) stride[k][i] = inner_stride[k][n - 1 - i];
  }
  *merged_ndim = n;
  return true;
}

size_t round_up(size_t v, size_t multiple) { return (v + multiple - 1) / multiple * multiple; }

size_t pow2_at_least(int64_t v, size_t cap) {
  size_t p = 1;
  while (p < cap && static_cast<int64_t>(p) < v) p *= 2;
  return p;
}

Launch launch_of(Module module, const char* kernel) {
  Launch l;
  l.module = module;
  l.kernel = kernel;
  return l;
}

void add_pointer(Launch* l, const hal_tensor_t& t, const void* stand_in) {
  l->args.push_back(KernelArg::of_pointer(t.data != nullptr ? hal_gpu::element0(t) : stand_in));
}

bool output_walk(Module module, const char* kernel, const hal_tensor_t& out, int64_t n, Launch* l) {
  StridedLayout layout{};
  const int64_t* strides[1] = {out.strides};
  if (!merge_dims(out.shape, out.ndim, strides, 1, layout.size, layout.stride, &layout.ndim)) return false;
  *l = launch_of(module, kernel);
  add_pointer(l, out, nullptr);
  l->args.push_back(KernelArg::of_value(layout));
  l->args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l->global[0] = static_cast<size_t>(n);
  return true;
}

}  // namespace hal_spirv::detail
