// SUM, MEAN, PROD, AMAX, AMIN and VECTOR_NORM of float32, and ALL and ANY of float32, bool and integers into bool
// or uint8, over any dims and strides, for the runtimes that take SPIR-V. A work-group per output element: its
// work-items stride over the reduced elements, then combine their partials in a local-memory tree of fixed shape
// (deterministic results, run to run). The NaN rule of amax/amin
// is the elementwise library's maximum/minimum (elementwise_ops.cuh: a NaN anywhere is the result), and the
// norms are the library's own (vector_norm.cuh), as reduce.cu's.
#include "kernels/elementwise_ops.cuh"
#include "kernels/vector_norm.cuh"
#include "element_types.h"
#include "kernel_layouts.h"

using hal_spirv::ReduceLayout;

constexpr int kMaxGroup = 256;  // the plan's work-group size is a power of two up to this (plan_reduce.cpp)

// Selects, not a switch: two cases of one value gave a phi that llvm-spirv-15 writes with a block twice.
inline float identity_of(int op) {
  const float one = op == HAL_OP_PROD || op == HAL_OP_ALL ? 1.0f : 0.0f;
  return op == HAL_OP_AMAX ? -INFINITY : op == HAL_OP_AMIN ? INFINITY : one;
}

inline float combine(int op, float a, float b) {
  switch (op) {
    case HAL_OP_PROD: return a * b;
    case HAL_OP_AMAX: return hal_gpu::ew::max_nan(a, b);
    case HAL_OP_AMIN: return hal_gpu::ew::min_nan(a, b);
    case HAL_OP_ALL: return a != 0.0f && b != 0.0f ? 1.0f : 0.0f;  // NaN is nonzero, as in ATen
    case HAL_OP_ANY: return a != 0.0f || b != 0.0f ? 1.0f : 0.0f;
    default: return a + b;
  }
}

// The offset of element j of `count` dims (row-major over `size`), with `strides`.
inline int64_t offset_of(uint64_t j, const int64_t* size, const int64_t* strides, int count) {
  int64_t offset = 0;
  for (int d = count - 1; d >= 0; --d) {
    const uint64_t q = j / static_cast<uint64_t>(size[d]);  // remainder from quotient: no `freeze` for llvm-spirv
    offset += static_cast<int64_t>(j - q * static_cast<uint64_t>(size[d])) * strides[d];
    j = q;
  }
  return offset;
}

// The reduction of output element m's elements by `r` (identity(), push(acc, x), combine(a, b), finish(acc)) over
// the work-group, written by lane 0: load(offset) reads the input's element at an offset, store(offset, value)
// writes the output's.
template <class Reducer, class Load, class Store>
inline void reduce_group(Load load, Store store, const ReduceLayout& l, local float* partial, const Reducer& r) {
  const uint64_t m = get_group_id(0);
  const int lane = get_local_id(0), lanes = get_local_size(0);
  const int64_t base = offset_of(m, l.kept_size, l.kept_in, l.kept_ndim);
  float acc = r.identity();
  for (int64_t j = lane; j < l.length; j += lanes) {
    acc = r.push(acc, load(base + offset_of(j, l.reduced_size, l.reduced_in, l.reduced_ndim)));
  }
  partial[lane] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = lanes / 2; width > 0; width /= 2) {
    if (lane < width) partial[lane] = r.combine(partial[lane], partial[lane + width]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0) store(offset_of(m, l.kept_size, l.kept_out, l.kept_ndim), r.finish(partial[0]));
}

// float32 in and out.
template <class Reducer>
inline void reduce_group(global const float* in, global float* out, const ReduceLayout& l, local float* partial,
                         const Reducer& r) {
  reduce_group([=](int64_t o) { return in[o]; }, [=](int64_t o, float v) { out[o] = v; }, l, partial, r);
}

// SUM, MEAN, PROD, AMAX, AMIN, ALL, ANY.
struct OpReducer {
  int op;
  float length;  // MEAN's divisor
  float identity() const { return identity_of(op); }
  float push(float a, float x) const { return ::combine(op, a, x); }
  float combine(float a, float b) const { return ::combine(op, a, b); }
  // As reduce.cu: the mean of 0 elements is NaN.
  float finish(float a) const { return op == HAL_OP_MEAN ? a * (1.0f / length) : a; }
};

kernel void reduce_f32(global const float* in, global float* out, ReduceLayout l, int op) {
  local float partial[kMaxGroup];
  reduce_group(in, out, l, partial, OpReducer{op, static_cast<float>(l.length)});
}

// ALL and ANY of any element type (kernel_layouts.h) into bool or uint8, computed in float32 (exact for 0 and 1).
kernel void reduce_typed_f32(global const char* in, global char* out, ReduceLayout l, int op, int in_type,
                             int out_type) {
  local float partial[kMaxGroup];
  reduce_group([=](int64_t o) { return load_float(in, in_type, o); },
               [=](int64_t o, float v) { store_float(out, out_type, o, v); }, l, partial,
               OpReducer{op, static_cast<float>(l.length)});
}

// VECTOR_NORM of order O (the library's, vector_norm.cuh); `ord` is the general order's value.
template <hal_gpu::NormOrder O>
struct NormReducer {
  using N = hal_gpu::VectorNorm<float, O>;
  float ord;
  float identity() const { return N::identity(); }
  float push(float a, float x) const { return N::push(a, x, ord); }
  float combine(float a, float b) const { return N::combine(a, b); }
  float finish(float a) const { return N::finish(a, ord); }
};

kernel void vector_norm_f32(global const float* in, global float* out, ReduceLayout l, int order, float ord) {
  local float partial[kMaxGroup];
  using hal_gpu::NormOrder;
  switch (static_cast<NormOrder>(order)) {
    case NormOrder::Inf: reduce_group(in, out, l, partial, NormReducer<NormOrder::Inf>{ord}); break;
    case NormOrder::NegInf: reduce_group(in, out, l, partial, NormReducer<NormOrder::NegInf>{ord}); break;
    case NormOrder::Zero: reduce_group(in, out, l, partial, NormReducer<NormOrder::Zero>{ord}); break;
    case NormOrder::One: reduce_group(in, out, l, partial, NormReducer<NormOrder::One>{ord}); break;
    case NormOrder::Two: reduce_group(in, out, l, partial, NormReducer<NormOrder::Two>{ord}); break;
    default: reduce_group(in, out, l, partial, NormReducer<NormOrder::General>{ord}); break;
  }
}
