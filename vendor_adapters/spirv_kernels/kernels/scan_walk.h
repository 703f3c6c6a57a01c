// The scan walks of the SPIR-V kernels over any element types, a work-item per line in order (scan.cl for float32
// accumulation of float16 and bfloat16, float64.cl for float64): the kernel library's combinations
// (gpu_kernels/kernels/scan_rules.cuh, as scan.cu), each element loaded from its type into the accumulation type A
// and each running result stored back in the output's type. C++ for OpenCL only.
#pragma once

#include "kernels/scan_rules.cuh"
#include "element_types.h"
#include "strided_walk.h"

template <class A, hal_gpu::ScanKind K>
inline void scan_typed_line(global const char* in, int in_type, global char* out, int out_type, int64_t in_at,
                            int64_t out_at, long length, long in_step, long out_step) {
  using C = hal_gpu::ScanCombine<A, K>;
  A acc = C::identity();
  for (long i = 0; i < length; ++i) {
    acc = C::of(acc, load_as<A>(in, in_type, in_at + i * in_step));
    store_as(out, out_type, out_at + i * out_step, acc);
  }
}

// CUMSUM, CUMPROD, LOGCUMSUMEXP (kind: ScanKind 0, 1, 2) of line m.
template <class A>
inline void scan_typed(global const char* in, int in_type, global char* out, int out_type, const StridedLayout& l,
                       uint64_t lines, long length, long in_step, long out_step, int kind) {
  using hal_gpu::ScanKind;
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[2];
  offsets_of<2>(m, lines, l, at);
  if (kind == 1) {
    scan_typed_line<A, ScanKind::Prod>(in, in_type, out, out_type, at[0], at[1], length, in_step, out_step);
  } else if (kind == 2) {
    scan_typed_line<A, ScanKind::LogSumExp>(in, in_type, out, out_type, at[0], at[1], length, in_step, out_step);
  } else {
    scan_typed_line<A, ScanKind::Sum>(in, in_type, out, out_type, at[0], at[1], length, in_step, out_step);
  }
}

template <class A, bool Max>
inline void extremum_typed_line(global const char* in, global char* values, int type, global long* indices,
                                const int64_t* at, long length, long in_step, long out_step, long index_step) {
  using C = hal_gpu::ExtremumCombine<A, Max>;
  hal_gpu::Ranked<A> acc = C::identity();
  for (long i = 0; i < length; ++i) {
    acc = C::of(acc, hal_gpu::Ranked<A>{load_as<A>(in, type, at[0] + i * in_step), i});
    store_as(values, type, at[1] + i * out_step, acc.value);
    indices[at[2] + i * index_step] = acc.index;
  }
}

// CUMMAX (max != 0) or CUMMIN of line m: values of the input's type, int64 indices.
template <class A>
inline void extremum_typed(global const char* in, global char* values, int type, global long* indices,
                           const StridedLayout& l, uint64_t lines, long length, long in_step, long out_step,
                           long index_step, int max) {
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[3];
  offsets_of<3>(m, lines, l, at);
  if (max != 0) extremum_typed_line<A, true>(in, values, type, indices, at, length, in_step, out_step, index_step);
  else extremum_typed_line<A, false>(in, values, type, indices, at, length, in_step, out_step, index_step);
}

// The entry points of one accumulation type, named with its suffix.
#define SCAN_TYPED_KERNELS(A, suffix)                                                                                  \
  kernel void scan_typed_##suffix(global const char* in, global char* out, StridedLayout l, ulong lines,               \
                                  long length, long in_step, long out_step, int kind, int in_type, int out_type) {     \
    scan_typed<A>(in, in_type, out, out_type, l, lines, length, in_step, out_step, kind);                              \
  }                                                                                                                    \
  kernel void extremum_typed_##suffix(global const char* in, global char* values, global long* indices,                \
                                      StridedLayout l, ulong lines, long length, long in_step, long out_step,          \
                                      long index_step, int max, int type) {                                            \
    extremum_typed<A>(in, values, type, indices, l, lines, length, in_step, out_step, index_step, max);                \
  }
