// CUMSUM and CUMPROD for the runtimes that take SPIR-V: a work-item per line walks it in order with the kernel
// library's combination (gpu_kernels/kernels/scan_rules.cuh, the same source scan.cu compiles). plan_scan.cpp's
// layout walks the lines (every dim but the scanned one) with operand 0 the input's strides and operand 1 the
// output's; in_step and out_step are the strides along the scanned dim. One order of operations per line, so the
// results are the same on every run; in place (out is in) is safe, each element read before it is written.
#include "kernels/scan_rules.cuh"
#include "element_types.h"
#include "strided_walk.h"

template <bool Prod>
inline void scan_f32_line(global const float* in, global float* out, int64_t in_at, int64_t out_at, long length,
                          long in_step, long out_step) {
  using C = hal_gpu::ScanCombine<float, Prod>;
  float acc = C::identity();
  for (long i = 0; i < length; ++i) {
    acc = C::of(acc, in[in_at + i * in_step]);
    out[out_at + i * out_step] = acc;
  }
}

// float32 in, float32 out.
kernel void scan_f32(global const float* in, global float* out, StridedLayout l, ulong lines, long length,
                     long in_step, long out_step, int prod) {
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[2];
  offsets_of<2>(m, lines, l, at);
  if (prod != 0) scan_f32_line<true>(in, out, at[0], at[1], length, in_step, out_step);
  else scan_f32_line<false>(in, out, at[0], at[1], length, in_step, out_step);
}

// An element of an integer or bool type (kernel_layouts.h) as int64. Out of line, as element_types.h's load_float.
inline __attribute__((noinline)) long load_long(const global char* p, int type, int64_t i) {
  switch (type) {
    case hal_spirv::kBool:
    case hal_spirv::kU8: return static_cast<long>(reinterpret_cast<const global uchar*>(p)[i]);
    case hal_spirv::kI8: return static_cast<long>(reinterpret_cast<const global char*>(p)[i]);
    case hal_spirv::kI16: return static_cast<long>(reinterpret_cast<const global short*>(p)[i]);
    case hal_spirv::kI32: return static_cast<long>(reinterpret_cast<const global int*>(p)[i]);
    default: return reinterpret_cast<const global long*>(p)[i];
  }
}

template <bool Prod>
inline void scan_i64_line(global const char* in, int in_type, global long* out, int64_t in_at, int64_t out_at,
                          long length, long in_step, long out_step) {
  using C = hal_gpu::ScanCombine<long, Prod>;
  long acc = C::identity();
  for (long i = 0; i < length; ++i) {
    acc = C::of(acc, load_long(in, in_type, in_at + i * in_step));
    out[out_at + i * out_step] = acc;
  }
}

// bool or an integer type in, int64 out (ATen's result dtype for them), with two's complement wraparound.
kernel void scan_i64(global const char* in, global long* out, StridedLayout l, ulong lines, long length, long in_step,
                     long out_step, int prod, int in_type) {
  const size_t m = get_global_id(0);
  if (m >= lines) return;
  int64_t at[2];
  offsets_of<2>(m, lines, l, at);
  if (prod != 0) scan_i64_line<true>(in, in_type, out, at[0], at[1], length, in_step, out_step);
  else scan_i64_line<false>(in, in_type, out, at[0], at[1], length, in_step, out_step);
}
