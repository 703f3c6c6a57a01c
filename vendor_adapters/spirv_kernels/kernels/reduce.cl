// SUM, MEAN, PROD, AMAX, AMIN, VAR, STD and VECTOR_NORM of float32, float16 and bfloat16 (accumulated in float32,
// as CUDA's kernels accumulate them), SUM, PROD, AMAX and AMIN of bool and integers (in int64), ARGMAX and ARGMIN of
// any of them, and ALL and ANY of any element type into bool or uint8, over any dims and strides, for the runtimes that take SPIR-V. A work-group per output
// element: its work-items stride over the reduced elements, then combine their partials in a local-memory tree of
// fixed shape (deterministic results, run to run). The NaN rule of amax/amin is the elementwise library's
// maximum/minimum (elementwise_ops.cuh: a NaN anywhere is the result), and the norms are the library's own
// (vector_norm.cuh), as reduce.cu's.
#include "kernels/vector_norm.cuh"
#include "reduce_walk.h"

// float32 in and out.
template <class Reducer>
inline void reduce_group(global const float* in, global float* out, const ReduceLayout& l, local float* partial,
                         const Reducer& r) {
  reduce_group([=](int64_t o) { return in[o]; }, [=](int64_t o, float v) { out[o] = v; }, l, partial, r);
}


kernel void reduce_f32(global const float* in, global float* out, ReduceLayout l, int op) {
  local float partial[kMaxGroup];
  reduce_group(in, out, l, partial, OpReducer<float>{op, static_cast<float>(l.length)});
}

// The same ops where an operand is not float32: float16 and bfloat16 in or out, and ALL and ANY of any element
// type (kernel_layouts.h) into bool or uint8 (exact in float32: 0 and 1).
kernel void reduce_typed_f32(global const char* in, global char* out, ReduceLayout l, int op, int in_type,
                             int out_type) {
  local float partial[kMaxGroup];
  reduce_typed(in, in_type, out, out_type, l, partial, OpReducer<float>{op, static_cast<float>(l.length)});
}

// SUM, PROD, AMAX and AMIN of bool and integers, accumulated in int64 (wrapping, as CUDA's kernels accumulate
// them) and stored truncated to the output's type.
struct IntegerReducer {
  int op;
  long identity() const {
    const long extreme = op == HAL_OP_AMAX ? LONG_MIN : LONG_MAX;
    return op == HAL_OP_AMAX || op == HAL_OP_AMIN ? extreme : op == HAL_OP_PROD ? 1 : 0;
  }
  long combine(long a, long b) const {
    switch (op) {
      case HAL_OP_PROD: return static_cast<long>(static_cast<ulong>(a) * static_cast<ulong>(b));
      case HAL_OP_AMAX: return a > b ? a : b;
      case HAL_OP_AMIN: return a < b ? a : b;
      default: return static_cast<long>(static_cast<ulong>(a) + static_cast<ulong>(b));
    }
  }
  long push(long a, long x, int64_t) const { return combine(a, x); }
  long finish(long a) const { return a; }
};

kernel void reduce_typed_i64(global const char* in, global char* out, ReduceLayout l, int op, int in_type,
                             int out_type) {
  local long partial[kMaxGroup];
  reduce_typed(in, in_type, out, out_type, l, partial, IntegerReducer{op});
}

kernel void vector_norm_f32(global const float* in, global float* out, ReduceLayout l, int order, float ord) {
  local float partial[kMaxGroup];
  local float* p = partial;
  with_norm_reducer<float>(order, ord, [=](const auto& r) { reduce_group(in, out, l, p, r); });
}

// float16 or bfloat16 in or out, the norm computed in float32 (CUDA's accumulation type for them).
kernel void vector_norm_typed_f32(global const char* in, global char* out, ReduceLayout l, int order, float ord,
                                  int in_type, int out_type) {
  local float partial[kMaxGroup];
  local float* p = partial;
  with_norm_reducer<float>(order, ord, [=](const auto& r) { reduce_typed(in, in_type, out, out_type, l, p, r); });
}

// ARGMAX and ARGMIN: floating values compared in float32 (float16 and bfloat16 exactly), bool and integers in
// int64; int64 indices out.
kernel void arg_reduce_typed_f32(global const char* in, global char* out, ReduceLayout l, int op, int in_type,
                                 int out_type) {
  local hal_gpu::ValueIndex<float> partial[kMaxGroup];
  arg_reduce<float>(in, in_type, out, out_type, l, op, partial);
}
kernel void arg_reduce_typed_i64(global const char* in, global char* out, ReduceLayout l, int op, int in_type,
                                 int out_type) {
  local hal_gpu::ValueIndex<long> partial[kMaxGroup];
  arg_reduce<long>(in, in_type, out, out_type, l, op, partial);
}

// VAR and STD of float32, float16 and bfloat16, in float32.
kernel void moments_typed_f32(global const char* in, global char* out, ReduceLayout l, int op, float correction,
                              int in_type, int out_type) {
  local hal_gpu::Moments<float> partial[kMaxGroup];
  moments_reduce<float>(in, in_type, out, out_type, l, op, correction, partial);
}
