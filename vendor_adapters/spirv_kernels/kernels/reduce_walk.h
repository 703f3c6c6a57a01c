// The reduction walk of the SPIR-V kernels (reduce.cl in float32 and int64, float64.cl in float64): a work-group
// per output element, its work-items striding over the reduced elements, their partials combined in a
// local-memory tree of fixed shape (deterministic results, run to run); and the reducers of the library's ops in
// an accumulation type. C++ for OpenCL only.
#pragma once

#include "kernels/elementwise_ops.cuh"
#include "kernels/reduce_rules.cuh"
#include "kernels/vector_norm.cuh"
#include "element_types.h"
#include "kernel_layouts.h"

using hal_spirv::ReduceLayout;

constexpr int kMaxGroup = 256;  // the plan's work-group size is a power of two up to this (plan_reduce.cpp)

// Selects, not a switch: two cases of one value gave a phi that llvm-spirv-15 writes with a block twice.
template <class A>
inline A identity_of(int op) {
  const A one = op == HAL_OP_PROD || op == HAL_OP_ALL ? A(1) : A(0);
  return op == HAL_OP_AMAX ? A(-INFINITY) : op == HAL_OP_AMIN ? A(INFINITY) : one;
}

template <class A>
inline A combine(int op, A a, A b) {
  switch (op) {
    case HAL_OP_PROD: return a * b;
    case HAL_OP_AMAX: return hal_gpu::ew::max_nan(a, b);
    case HAL_OP_AMIN: return hal_gpu::ew::min_nan(a, b);
    case HAL_OP_ALL: return a != A(0) && b != A(0) ? A(1) : A(0);  // NaN is nonzero, as in ATen
    case HAL_OP_ANY: return a != A(0) || b != A(0) ? A(1) : A(0);
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

// The reduction of output element m's elements by `r` (identity(), push(acc, x, j) with x the reduced element j,
// combine(a, b), finish(acc)) over the work-group, in the accumulation type A, written by lane 0: load(offset)
// reads the input's element at an offset, store(offset, value) writes the output's.
template <class Reducer, class Load, class Store, class A>
__forceinline__ void reduce_group(Load load, Store store, const ReduceLayout& l, local A* partial, const Reducer& r) {
  const uint64_t m = get_group_id(0);
  const int lane = get_local_id(0), lanes = get_local_size(0);
  const int64_t base = offset_of(m, l.kept_size, l.kept_in, l.kept_ndim);
  A acc = r.identity();
  for (int64_t j = lane; j < l.length; j += lanes) {
    acc = r.push(acc, load(base + offset_of(j, l.reduced_size, l.reduced_in, l.reduced_ndim)), j);
  }
  partial[lane] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = lanes / 2; width > 0; width /= 2) {
    if (lane < width) partial[lane] = r.combine(partial[lane], partial[lane + width]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0) store(offset_of(m, l.kept_size, l.kept_out, l.kept_ndim), r.finish(partial[0]));
}

// Any element types in and out (element_types.h), accumulated in A.
template <class Reducer, class A>
inline void reduce_typed(global const char* in, int in_type, global char* out, int out_type, const ReduceLayout& l,
                         local A* partial, const Reducer& r) {
  reduce_group([=](int64_t o) { return load_as<A>(in, in_type, o); },
               [=](int64_t o, A v) { store_as(out, out_type, o, v); }, l, partial, r);
}

// SUM, MEAN, PROD, AMAX, AMIN, ALL, ANY in the accumulation type A.
template <class A>
struct OpReducer {
  int op;
  A length;  // MEAN's divisor
  A identity() const { return identity_of<A>(op); }
  A push(A a, A x, int64_t) const { return ::combine<A>(op, a, x); }
  A combine(A a, A b) const { return ::combine<A>(op, a, b); }
  // As reduce.cu: the mean of 0 elements is NaN.
  A finish(A a) const { return op == HAL_OP_MEAN ? a * (A(1) / length) : a; }
};

// VECTOR_NORM of order O (the library's, vector_norm.cuh) in A; `ord` is the general order's value.
template <class A, hal_gpu::NormOrder O>
struct NormReducer {
  using N = hal_gpu::VectorNorm<A, O>;
  A ord;
  A identity() const { return N::identity(); }
  A push(A a, A x, int64_t) const { return N::push(a, x, ord); }
  A combine(A a, A b) const { return N::combine(a, b); }
  A finish(A a) const { return N::finish(a, ord); }
};

// run(reducer) with the NormReducer of `order`.
template <class A, class Run>
inline void with_norm_reducer(int order, A ord, const Run& run) {
  using hal_gpu::NormOrder;
  switch (static_cast<NormOrder>(order)) {
    case NormOrder::Inf: run(NormReducer<A, NormOrder::Inf>{ord}); break;
    case NormOrder::NegInf: run(NormReducer<A, NormOrder::NegInf>{ord}); break;
    case NormOrder::Zero: run(NormReducer<A, NormOrder::Zero>{ord}); break;
    case NormOrder::One: run(NormReducer<A, NormOrder::One>{ord}); break;
    case NormOrder::Two: run(NormReducer<A, NormOrder::Two>{ord}); break;
    default: run(NormReducer<A, NormOrder::General>{ord}); break;
  }
}

// ARGMAX (Max) and ARGMIN of values compared in A, their index the reduced element's (exactly one reduced dim):
// reduce_rules.cuh's rule, as reduce.cu's. finish() gives the index to store.
template <class A, bool Max>
struct ArgReducer {
  using V = hal_gpu::ValueIndex<A>;
  using Rule = hal_gpu::ArgRule<A, Max>;
  V identity() const { return Rule::identity(); }
  V push(V a, A x, int64_t j) const { return Rule::combine(a, V{x, j}); }
  V combine(V a, V b) const { return Rule::combine(a, b); }
  long finish(V a) const { return Rule::result(a); }
};

// VAR and STD in A with `correction`: reduce_rules.cuh's Welford rule, as reduce.cu's.
template <class A>
struct MomentsReducer {
  using M = hal_gpu::Moments<A>;
  using Rule = hal_gpu::WelfordRule<A>;
  A correction;
  bool is_std;
  M identity() const { return Rule::identity(); }
  M push(M a, A x, int64_t) const { return Rule::push(a, x); }
  M combine(M a, M b) const { return Rule::combine(a, b); }
  A finish(M a) const { return Rule::result(a, correction, is_std); }
};

// ARGMAX and ARGMIN of any element type loaded as A into an int64 (or other integer) output, and VAR and STD of
// a floating element type into a floating one: the kernels' bodies, which reduce.cl and float64.cl instantiate.
template <class A>
inline void arg_reduce(global const char* in, int in_type, global char* out, int out_type, const ReduceLayout& l,
                       int op, local hal_gpu::ValueIndex<A>* partial) {
  auto load = [=](int64_t o) { return load_as<A>(in, in_type, o); };
  auto store = [=](int64_t o, long index) { store_long(out, out_type, o, index); };
  if (op == HAL_OP_ARGMAX) reduce_group(load, store, l, partial, ArgReducer<A, true>{});
  else reduce_group(load, store, l, partial, ArgReducer<A, false>{});
}

template <class A>
inline void moments_reduce(global const char* in, int in_type, global char* out, int out_type, const ReduceLayout& l,
                           int op, A correction, local hal_gpu::Moments<A>* partial) {
  reduce_group([=](int64_t o) { return load_as<A>(in, in_type, o); },
               [=](int64_t o, A v) { store_as(out, out_type, o, v); }, l, partial,
               MomentsReducer<A>{correction, op == HAL_OP_STD});
}
