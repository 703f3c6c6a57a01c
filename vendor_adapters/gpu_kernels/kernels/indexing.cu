// INDEX_SELECT, GATHER, SCATTER and INDEX_PUT over strided tensors of any dtype.
//
// Selection copies elements as raw bytes (source and destination share a dtype), so one kernel serves
// every dtype. Scatter-add and accumulating index_put use atomic adds (f32, f64, f16, bf16, int32, int64;
// other dtypes answer NOT_SUPPORTED so the core falls back); scatter's multiply, amax and amin, and its add of
// the other dtypes, a compare-and-swap loop on any dtype (atomic_combine.cuh). Plain scatter and index_put with repeated
// indices keep one of the written values, unspecified which, as on CUDA.
//
// Bad indices: PyTorch raises on CPU and fires a device-side assert on CUDA; a kernel here cannot raise
// without synchronizing. So an out-of-range index never reads or writes out of bounds: selections
// (index_select, gather) produce 0 for it and updates (scatter, index_put) skip it. Negative indices
// in [-size, 0) count from the end for INDEX_SELECT and INDEX_PUT (Python indexing, which the glue's
// index.Tensor / index_put_ route here); GATHER and SCATTER treat them as out of range, as ATen does.
#include <cstdint>
#include <cstring>

#include "kernels/atomic_combine.cuh"
#include "kernels/family_support.cuh"
#include "kernels/indexing_elements.cuh"
#include "kernels/kernel_launch.h"

namespace hal_gpu {
namespace {

__device__ __forceinline__ int64_t load_index(const Operand& index, int64_t offset) {
  return load_as<int64_t>(index.base + offset * index.elem_size, index.dtype);
}

// One value added atomically to an element of dtype d: floating dtypes take `f`, integer dtypes `i`.
__device__ __forceinline__ void atomic_add_element(char* p, DType d, double f, int64_t i) {
  switch (d) {
    case DType::F32: atomicAdd(reinterpret_cast<float*>(p), static_cast<float>(f)); break;
    case DType::F64: atomicAdd(reinterpret_cast<double*>(p), f); break;
    case DType::F16: atomicAdd(reinterpret_cast<__half*>(p), __float2half(static_cast<float>(f))); break;
    case DType::BF16: atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __float2bfloat16(static_cast<float>(f))); break;
    case DType::I32: atomicAdd(reinterpret_cast<int*>(p), static_cast<int>(i)); break;
    case DType::I64:
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(i));  // two's complement
      break;
    default: break;
  }
}
bool has_atomic_add(DType d) {
  return d == DType::F32 || d == DType::F64 || d == DType::F16 || d == DType::BF16 || d == DType::I32 ||
         d == DType::I64;
}

// Offsets of the row-major linear index `e` in `a` and `b`, except that `b` skips dimension `dim`, whose
// coordinate is returned instead (the position in the index tensor).
__device__ __forceinline__ int64_t split_offsets(int64_t e, const Shape& shape, int dim, const int64_t* a_strides,
                                                 const int64_t* b_strides, int64_t& a_off, int64_t& b_off) {
  a_off = 0;
  b_off = 0;
  int64_t at_dim = 0;
  for (int d = shape.ndim - 1; d >= 0; --d) {
    const int64_t c = e % shape.sizes[d];
    e /= shape.sizes[d];
    a_off += c * a_strides[d];
    if (d == dim) at_dim = c;
    else b_off += c * b_strides[d];
  }
  return at_dim;
}

// Each strided kernel takes its arguments as one struct (see Operand in tensor_access.cuh: separate by-value
// Shape and Operand parameters cost each thread a local copy of them, hundreds of bytes).

// out[..., k, ...] = self[..., index[k], ...] (any layout).
struct IndexSelectArgs {
  Operand out, self, index;
  int64_t index_stride;
  Shape shape;
  int dim;
  int64_t self_dim_size, n;
};
__global__ void index_select_strided(IndexSelectArgs a) {
  const Operand &out = a.out, &self = a.self, &index = a.index;
  const Shape& shape = a.shape;
  const int dim = a.dim;
  const int64_t n = a.n;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t out_off, self_off;
    const int64_t k = split_offsets(e, shape, dim, out.strides, self.strides, out_off, self_off);
    const int64_t i = checked_index(load_index(index, k * a.index_stride), a.self_dim_size, true);
    char* dst = out.base + out_off * out.elem_size;
    if (i < 0) zero_element(dst, out.elem_size);
    else copy_element(dst, self.base + (self_off + i * self.strides[dim]) * self.elem_size, out.elem_size);
  }
}

// dim 0 of contiguous tensors (embedding lookups): whole rows copied in units of `Unit` bytes
// (indexing_elements.cuh's body).
template <class Unit>
__global__ void index_select_rows(Unit* out, const Unit* self, Operand index, int64_t index_stride, int64_t rows,
                                  int64_t units_per_row, int64_t self_rows) {
  index_select_rows_body(out, self, [=](int64_t k) { return load_index(index, k * index_stride); }, rows,
                         units_per_row, self_rows);
}

// out = self[..., index[...], ...] along dim; self's stride at dim is zeroed in its Operand.
struct GatherArgs {
  Operand ops[3];  // out, index, self
  int64_t self_dim_stride, self_dim_size;
  Shape shape;
  int64_t n;
};
__global__ void gather_kernel(GatherArgs a) {
  const Operand &out = a.ops[0], &index = a.ops[1], &self = a.ops[2];
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(e, a.shape, a.ops, off);
    const int64_t i = checked_index(load_index(index, off[1]), a.self_dim_size, false);
    char* dst = out.base + off[0] * out.elem_size;
    if (i < 0) zero_element(dst, out.elem_size);
    else copy_element(dst, self.base + (off[2] + i * a.self_dim_stride) * self.elem_size, out.elem_size);
  }
}

// A scatter's source: a tensor of index's shape (ScatterArgs::ops[2]), or one value (a scalar operand).
struct Source {
  bool value_is_int = false;
  double f = 0;
  int64_t i = 0;
};

// out[..., index[...], ...] (=|+=) src[...] along dim; out's stride at dim is zeroed in its Operand.
struct ScatterArgs {
  Operand ops[3];  // out, index, the source tensor (base == nullptr for a scalar source)
  Source src;
  int64_t out_dim_stride, out_dim_size;
  Shape shape;
  int64_t n;
  int64_t reduce;  // ScatterReduce
  bool integral;
  bool hardware_add;  // the dtype has an atomic add
};
__global__ void scatter_kernel(ScatterArgs a) {
  const Operand &out = a.ops[0], &index = a.ops[1], &src_tensor = a.ops[2];
  const Source& src = a.src;
  const bool integral = a.integral;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(e, a.shape, a.ops, off);
    const int64_t i = checked_index(load_index(index, off[1]), a.out_dim_size, false);
    if (i < 0) continue;
    char* dst = out.base + (off[0] + i * a.out_dim_stride) * out.elem_size;
    const char* s = src_tensor.base ? src_tensor.base + off[2] * src_tensor.elem_size : nullptr;
    if (a.reduce != kScatterSet) {
      double f = src.f;
      int64_t v = src.i;
      if (s) {
        if (integral) v = load_as<int64_t>(s, src_tensor.dtype);
        else f = load_as<double>(s, src_tensor.dtype);
      } else if (integral != src.value_is_int) {
        if (integral) v = static_cast<int64_t>(src.f);
        else f = static_cast<double>(src.i);
      }
      if (a.reduce == kScatterAdd && a.hardware_add) atomic_add_element(dst, out.dtype, f, v);
      else if (integral) atomic_combine<int64_t>(dst, out.dtype, out.elem_size, a.reduce, v);
      else atomic_combine<double>(dst, out.dtype, out.elem_size, a.reduce, f);
    } else if (s) {
      copy_element(dst, s, out.elem_size);
    } else if (src.value_is_int) {
      store_from<int64_t>(dst, out.dtype, src.i);
    } else {
      store_from<double>(dst, out.dtype, src.f);
    }
  }
}

// out[index[k], ...] (=|+=) values[k, ...]; dim 0 of out is skipped by split_offsets.
struct IndexPutArgs {
  Operand out, values, index;
  int64_t index_stride;
  Shape shape;
  int64_t out_rows, n;
  bool accumulate, integral;
};
__global__ void index_put_kernel(IndexPutArgs a) {
  const Operand &out = a.out, &values = a.values;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t values_off, out_off;
    const int64_t k = split_offsets(e, a.shape, 0, values.strides, out.strides, values_off, out_off);
    const int64_t i = checked_index(load_index(a.index, k * a.index_stride), a.out_rows, true);
    if (i < 0) continue;
    char* dst = out.base + (out_off + i * out.strides[0]) * out.elem_size;
    const char* s = values.base + values_off * values.elem_size;
    if (!a.accumulate) {
      copy_element(dst, s, out.elem_size);
    } else if (a.integral) {
      atomic_add_element(dst, out.dtype, 0.0, load_as<int64_t>(s, values.dtype));
    } else {
      atomic_add_element(dst, out.dtype, load_as<double>(s, values.dtype), 0);
    }
  }
}

constexpr int kThreads = 256;

bool is_index_dtype(const hal_tensor_t& t) {
  const DType d = dtype_of(t.dtype);
  return d == DType::I64 || d == DType::I32;
}

int64_t wrap_dim(int64_t dim, int ndim) { return dim < 0 ? dim + ndim : dim; }

bool aligned(const void* p, size_t unit) { return reinterpret_cast<uintptr_t>(p) % unit == 0; }

template <class Unit>
hal_status_t select_rows(const OpCall& call, int64_t K, int64_t row_bytes, int64_t self_rows) {
  const hal_tensor_t& index = call.inputs[1];
  const int64_t units = row_bytes / static_cast<int64_t>(sizeof(Unit));
  return launch_kernel<index_select_rows<Unit>>(
      "index_select_rows", call.device, grid_for(K * units, kThreads), kThreads, 0, call.stream,
      reinterpret_cast<Unit*>(element0(call.outputs[0])), reinterpret_cast<const Unit*>(element0(call.inputs[0])),
      operand_of(index), index.strides[0], K, units, self_rows);
}

// INDEX_SELECT's and GATHER's operands: inputs self and index (int64 or int32: 1-D for index_select, of
// self's rank for gather), output out of self's rank and dtype, and dim (the op's scalar, wrapped) within
// self's rank. Sets dim; nullptr, or what is wrong.
const char* check_selection(const OpCall& call, bool vector_index, int64_t& dim) {
  if (!has_operands(call, 2, 1, 1)) return "unexpected operands";
  const hal_tensor_t& self = call.inputs[0];
  const hal_tensor_t& index = call.inputs[1];
  const hal_tensor_t& out = call.outputs[0];
  if (self.ndim < 1 || out.ndim != self.ndim || index.ndim != (vector_index ? 1 : self.ndim) ||
      !is_index_dtype(index) || dtype_of(out.dtype) != dtype_of(self.dtype) ||
      dtype_of(self.dtype) == DType::Unsupported) {
    return vector_index ? "expected self [..], index [K] int64/int32, out of self's dtype"
                        : "expected self, index and out of one rank";
  }
  dim = wrap_dim(scalar_as_int(op_scalar(call, 0)), self.ndim);
  return dim < 0 || dim >= self.ndim ? "dim out of range" : nullptr;
}

hal_status_t index_select(const OpCall& call) {
  int64_t dim = 0;
  if (const char* wrong = check_selection(call, true, dim)) return fail(HAL_STATUS_NOT_SUPPORTED, std::string("index_select: ") + wrong);
  const hal_tensor_t &self = call.inputs[0], &index = call.inputs[1], &out = call.outputs[0];
  const int64_t K = index.shape[0];
  for (int d = 0; d < self.ndim; ++d) {
    if (out.shape[d] != (d == dim ? K : self.shape[d])) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "index_select: out's shape is not self's with dim resized");
    }
  }
  const int64_t n = numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  if (numel(self) == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "index_select: nothing to select from");
  const int elem = dtype_size(dtype_of(self.dtype));
  if (dim == 0 && is_contiguous(self) && is_contiguous(out)) {
    const int64_t row_bytes = n / K * elem;
    const void* a = element0(self);
    const void* b = element0(out);
    auto fits = [&](size_t unit) { return row_bytes % static_cast<int64_t>(unit) == 0 && aligned(a, unit) && aligned(b, unit); };
    if (fits(16)) return select_rows<uint4>(call, K, row_bytes, self.shape[0]);
    if (fits(8)) return select_rows<uint2>(call, K, row_bytes, self.shape[0]);
    if (fits(4)) return select_rows<uint32_t>(call, K, row_bytes, self.shape[0]);
    if (fits(2)) return select_rows<uint16_t>(call, K, row_bytes, self.shape[0]);
    return select_rows<uint8_t>(call, K, row_bytes, self.shape[0]);
  }
  const IndexSelectArgs args{operand_of(out), operand_of(self), operand_of(index), index.strides[0], shape_of(out),
                             static_cast<int>(dim), self.shape[dim], n};
  return launch_kernel<index_select_strided>("index_select_strided", call.device, grid_for(n, kThreads), kThreads, 0,
                                             call.stream, args);
}

hal_status_t gather(const OpCall& call) {
  int64_t dim = 0;
  if (const char* wrong = check_selection(call, false, dim)) return fail(HAL_STATUS_NOT_SUPPORTED, std::string("gather: ") + wrong);
  const hal_tensor_t &self = call.inputs[0], &index = call.inputs[1], &out = call.outputs[0];
  for (int d = 0; d < self.ndim; ++d) {
    if (out.shape[d] != index.shape[d] || (d != dim && index.shape[d] > self.shape[d])) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "gather: index larger than self outside dim");
    }
  }
  const int64_t n = numel(index);
  if (n == 0) return HAL_STATUS_SUCCESS;
  if (numel(self) == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "gather: nothing to gather from");
  Operand self_op = operand_of(self);
  const int64_t dim_stride = self_op.strides[dim];
  self_op.strides[dim] = 0;
  const GatherArgs args{{operand_of(out), operand_of(index), self_op}, dim_stride, self.shape[dim], shape_of(index), n};
  return launch_kernel<gather_kernel>("gather", call.device, grid_for(n, kThreads), kThreads, 0, call.stream, args);
}

hal_status_t scatter(const OpCall& call) {
  if (!has_operands(call, 2, 1)) return fail(HAL_STATUS_NOT_SUPPORTED, "scatter: unexpected operands");
  const hal_tensor_t& index = call.inputs[0];
  const hal_tensor_t& src = call.inputs[1];
  const hal_tensor_t& out = call.outputs[0];
  const bool scalar_src = is_scalar_operand(src);
  const int first = scalar_src ? 1 : 0;  // the scalar operand's value comes before the op's own scalars
  if (!has_scalars(call, first + 2)) return fail(HAL_STATUS_NOT_SUPPORTED, "scatter: missing scalars");
  const DType dt = dtype_of(out.dtype);
  if (out.ndim < 1 || index.ndim != out.ndim || !is_index_dtype(index) || dt == DType::Unsupported ||
      (!scalar_src && (src.ndim != out.ndim || dtype_of(src.dtype) != dt))) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "scatter: expected index and src of out's rank, src of out's dtype");
  }
  const int64_t dim = wrap_dim(scalar_as_int(op_scalar(call, 0, first)), out.ndim);
  const int64_t reduce = scalar_as_int(op_scalar(call, 1, first));
  if (dim < 0 || dim >= out.ndim || reduce < kScatterSet || reduce > kScatterMin) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "scatter: bad dim or reduce");
  }
  for (int d = 0; d < out.ndim; ++d) {
    if ((d != dim && index.shape[d] > out.shape[d]) || (!scalar_src && src.shape[d] != index.shape[d])) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "scatter: src must have index's shape; index within out outside dim");
    }
  }
  const int64_t n = numel(index);
  if (n == 0) return HAL_STATUS_SUCCESS;
  if (numel(out) == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "scatter: nothing to scatter into");
  ScatterArgs args{};
  if (scalar_src) {
    const hal_scalar_t& v = call.scalars[0];
    args.src.value_is_int = v.kind != 0;
    args.src.f = scalar_as_double(v);
    args.src.i = scalar_as_int(v);
  } else {
    args.ops[2] = operand_of(src);
  }
  args.ops[0] = operand_of(out);
  args.ops[1] = operand_of(index);
  args.out_dim_stride = args.ops[0].strides[dim];
  args.ops[0].strides[dim] = 0;
  args.out_dim_size = out.shape[dim];
  args.shape = shape_of(index);
  args.n = n;
  args.reduce = reduce;
  args.hardware_add = has_atomic_add(dt);
  args.integral = !is_floating(dt);
  return launch_kernel<scatter_kernel>("scatter", call.device, grid_for(n, kThreads), kThreads, 0, call.stream, args);
}

hal_status_t index_put(const OpCall& call) {
  if (!has_operands(call, 2, 1, 1)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "index_put: unexpected operands");
  }
  const hal_tensor_t& index = call.inputs[0];
  const hal_tensor_t& values = call.inputs[1];
  const hal_tensor_t& out = call.outputs[0];
  const DType dt = dtype_of(out.dtype);
  if (out.ndim < 1 || index.ndim != 1 || !is_index_dtype(index) || values.ndim != out.ndim ||
      dtype_of(values.dtype) != dt || dt == DType::Unsupported || values.shape[0] != index.shape[0]) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "index_put: expected index [K], values [K, ...] of out's rank and dtype");
  }
  for (int d = 1; d < out.ndim; ++d) {
    if (values.shape[d] != out.shape[d]) return fail(HAL_STATUS_NOT_SUPPORTED, "index_put: values' trailing shape");
  }
  const bool accumulate = scalar_as_int(op_scalar(call, 0)) != 0;
  if (accumulate && !has_atomic_add(dt)) return fail(HAL_STATUS_NOT_SUPPORTED, "index_put: no atomic add for dtype");
  const int64_t n = numel(values);
  if (n == 0) return HAL_STATUS_SUCCESS;
  if (numel(out) == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "index_put: nothing to put into");
  const IndexPutArgs args{operand_of(out), operand_of(values), operand_of(index), index.strides[0], shape_of(values),
                          out.shape[0], n, accumulate, !is_floating(dt)};
  return launch_kernel<index_put_kernel>("index_put", call.device, grid_for(n, kThreads), kThreads, 0, call.stream, args);
}

}  // namespace

hal_status_t launch_indexing(const OpCall& call) {
  switch (call.op) {
    case HAL_OP_INDEX_SELECT: return index_select(call);
    case HAL_OP_GATHER: return gather(call);
    case HAL_OP_SCATTER: return scatter(call);
    case HAL_OP_INDEX_PUT: return index_put(call);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "indexing: unknown op");
  }
}

}  // namespace hal_gpu
