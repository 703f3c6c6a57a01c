// The scan family for the runtimes that take SPIR-V: CUMSUM, CUMPROD and LOGCUMSUMEXP (scan_f32, scan_i64, and
// scan_typed_f32 for float16 and bfloat16) and CUMMAX / CUMMIN (extremum_f32, extremum_i64, extremum_typed_f32);
// float64's are float64.cl's. A work-item per line walks it in order with the kernel library's
// combinations (gpu_kernels/kernels/scan_rules.cuh, the same source scan.cu compiles). plan_scan.cpp's layout
// walks the lines (every dim but the scanned one) with operand 0 the input's strides, operand 1 the output's
// and operand 2 the indices'; the *_step arguments are the strides along the scanned dim. One order of
// operations per line, so the results are the same on every run; in place (out is in) is safe, each element
// read before it is written.
#include "kernels/scan_rules.cuh"
#include "element_types.h"
#include "scan_walk.h"
#include "strided_walk.h"

using hal_gpu::ScanKind;

template <ScanKind K>
inline void scan_f32_line(global const float* in, global float* out, int64_t in_at, int64_t out_at, long length,
                          long in_step, long out_step) {
  using C = hal_gpu::ScanCombine<float, K>;
  float acc = C::identity();
  for (long i = 0; i < length; ++i) {
    acc = C::of(acc, in[in_at + i * in_step]);
    out[out_at + i * out_step] = acc;
  }
}

// float32 in, float32 out; kind: ScanKind (0 sums, 1 products, 2 log-sum-exps).
kernel void scan_f32(global const float* in, global float* out, StridedLayout l, ulong lines, long length,
                     long in_step, long out_step, int kind) {
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[2];
  offsets_of<2>(m, lines, l, at);
  if (kind == 1) scan_f32_line<ScanKind::Prod>(in, out, at[0], at[1], length, in_step, out_step);
  else if (kind == 2) scan_f32_line<ScanKind::LogSumExp>(in, out, at[0], at[1], length, in_step, out_step);
  else scan_f32_line<ScanKind::Sum>(in, out, at[0], at[1], length, in_step, out_step);
}

template <ScanKind K>
inline void scan_i64_line(global const char* in, int in_type, global long* out, int64_t in_at, int64_t out_at,
                          long length, long in_step, long out_step) {
  using C = hal_gpu::ScanCombine<long, K>;
  long acc = C::identity();
  for (long i = 0; i < length; ++i) {
    acc = C::of(acc, load_long(in, in_type, in_at + i * in_step));
    out[out_at + i * out_step] = acc;
  }
}

// bool or an integer type in, int64 out (ATen's result dtype for them), with two's complement wraparound; kind
// 0 sums, 1 products.
kernel void scan_i64(global const char* in, global long* out, StridedLayout l, ulong lines, long length, long in_step,
                     long out_step, int kind, int in_type) {
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[2];
  offsets_of<2>(m, lines, l, at);
  if (kind == 1) scan_i64_line<ScanKind::Prod>(in, in_type, out, at[0], at[1], length, in_step, out_step);
  else scan_i64_line<ScanKind::Sum>(in, in_type, out, at[0], at[1], length, in_step, out_step);
}

template <class T, bool Max>
inline void extremum_line(global const T* in, global T* values, global long* indices, const int64_t* at, long length,
                          long in_step, long out_step, long index_step) {
  using C = hal_gpu::ExtremumCombine<T, Max>;
  hal_gpu::Ranked<T> acc = C::identity();
  for (long i = 0; i < length; ++i) {
    acc = C::of(acc, hal_gpu::Ranked<T>{in[at[0] + i * in_step], i});
    values[at[1] + i * out_step] = acc.value;
    indices[at[2] + i * index_step] = acc.index;
  }
}

// CUMMAX (max != 0) or CUMMIN of float32 values: values float32, indices int64.
kernel void extremum_f32(global const float* in, global float* values, global long* indices, StridedLayout l,
                         ulong lines, long length, long in_step, long out_step, long index_step, int max) {
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[3];
  offsets_of<3>(m, lines, l, at);
  if (max != 0) extremum_line<float, true>(in, values, indices, at, length, in_step, out_step, index_step);
  else extremum_line<float, false>(in, values, indices, at, length, in_step, out_step, index_step);
}

// The same of int64 values.
kernel void extremum_i64(global const long* in, global long* values, global long* indices, StridedLayout l,
                         ulong lines, long length, long in_step, long out_step, long index_step, int max) {
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[3];
  offsets_of<3>(m, lines, l, at);
  if (max != 0) extremum_line<long, true>(in, values, indices, at, length, in_step, out_step, index_step);
  else extremum_line<long, false>(in, values, indices, at, length, in_step, out_step, index_step);
}

// float16 and bfloat16 (and float32 into one of them), accumulated in float32 as scan.cu does (scan_walk.h).
SCAN_TYPED_KERNELS(float, f32)
