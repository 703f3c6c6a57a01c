// Elementwise ops computed in float32, as C++ for OpenCL compiled to SPIR-V: the math is the portable kernel
// library's (elementwise_ops.cuh, the same functions the CUDA and HIP builds run), chosen by the op id at run
// time. Three walks: dense float32 operands of one shape (*_f32, an element per work-item), any strides, broadcasts
// and scalar operands (*_strided_f32, through a StridedLayout), and the same with operands of other element types
// beside a float32 one (*_typed_f32: bool conditions and results, integer inputs, dtype conversions); FILL of any
// element size and ARANGE. The build compiles this file to SPIR-V and embeds it in the adapters that run SPIR-V
// (../CMakeLists.txt); ../plan_elementwise.cpp says which op launches which kernel with which arguments.
// tests/python/test_spirv_kernels.py checks every op of the dense kernels against PyTorch's on an OpenCL device;
// tests/python/test_opencl_adapter.py the strided and typed ones, through the adapter.
#include "kernels/elementwise_ops.cuh"
#include "kernel_layouts.h"
#include "strided_walk.h"
#include "typed_walk.h"

using hal_gpu::ew::Params;
using hal_spirv::FloatParams;
using hal_spirv::IntegerParams;

using hal_gpu::ew::apply_runtime;
using hal_spirv::IntegerScalars;

kernel void unary_f32(global const float* a, global float* out, ulong n, int op, FloatParams k) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v[1] = {a[i]};
  out[i] = apply_runtime<1, float>(op, v, params<float>(k));
}

kernel void binary_f32(global const float* a, global const float* b, global float* out, ulong n, int op,
                       FloatParams k) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v[2] = {a[i], b[i]};
  out[i] = apply_runtime<2, float>(op, v, params<float>(k));
}

kernel void ternary_f32(global const float* a, global const float* b, global const float* c, global float* out,
                        ulong n, int op, FloatParams k) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v[3] = {a[i], b[i], c[i]};
  out[i] = apply_runtime<3, float>(op, v, params<float>(k));
}


// Input k's value: a scalar operand's (`scalar`, with the layout's scalar_mask), or the element at its offset.
template <class T>
inline T operand(global const T* p, const StridedLayout& l, const T* scalar, int k, int64_t offset) {
  return (l.scalar_mask >> k) & 1 ? scalar[k] : p[offset];
}

// The strided walks in the compute type T: float32, or int64 (integer tensors of int64 alone; their scalar
// operands' values travel in an IntegerScalars, since the layout's are float).
template <class T>
inline void unary_strided(global const T* a, global T* out, const StridedLayout& l, const T* scalar, uint64_t n,
                          int op, const Params<T>& p) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[2];
  offsets_of<2>(i, n, l, at);
  const T v[1] = {operand<T>(a, l, scalar, 0, at[0])};
  out[at[1]] = apply_runtime<1, T>(op, v, p);
}

template <class T>
inline void binary_strided(global const T* a, global const T* b, global T* out, const StridedLayout& l,
                           const T* scalar, uint64_t n, int op, const Params<T>& p) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[3];
  offsets_of<3>(i, n, l, at);
  const T v[2] = {operand<T>(a, l, scalar, 0, at[0]), operand<T>(b, l, scalar, 1, at[1])};
  out[at[2]] = apply_runtime<2, T>(op, v, p);
}

template <class T>
inline void ternary_strided(global const T* a, global const T* b, global const T* c, global T* out,
                            const StridedLayout& l, const T* scalar, uint64_t n, int op, const Params<T>& p) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[4];
  offsets_of<4>(i, n, l, at);
  const T v[3] = {operand<T>(a, l, scalar, 0, at[0]), operand<T>(b, l, scalar, 1, at[1]), operand<T>(c, l, scalar, 2, at[2])};
  out[at[3]] = apply_runtime<3, T>(op, v, p);
}

kernel void unary_strided_f32(global const float* a, global float* out, StridedLayout l, ulong n, int op,
                              FloatParams k) {
  unary_strided<float>(a, out, l, l.scalar, n, op, params<float>(k));
}

kernel void binary_strided_f32(global const float* a, global const float* b, global float* out, StridedLayout l,
                               ulong n, int op, FloatParams k) {
  binary_strided<float>(a, b, out, l, l.scalar, n, op, params<float>(k));
}

kernel void ternary_strided_f32(global const float* a, global const float* b, global const float* c,
                                global float* out, StridedLayout l, ulong n, int op, FloatParams k) {
  ternary_strided<float>(a, b, c, out, l, l.scalar, n, op, params<float>(k));
}

kernel void unary_strided_i64(global const long* a, global long* out, StridedLayout l, IntegerScalars scalars,
                              ulong n, int op, IntegerParams k) {
  unary_strided<int64_t>(a, out, l, scalars.value, n, op, params<int64_t>(k));
}

kernel void binary_strided_i64(global const long* a, global const long* b, global long* out, StridedLayout l,
                               IntegerScalars scalars, ulong n, int op, IntegerParams k) {
  binary_strided<int64_t>(a, b, out, l, scalars.value, n, op, params<int64_t>(k));
}

kernel void ternary_strided_i64(global const long* a, global const long* b, global const long* c, global long* out,
                                StridedLayout l, IntegerScalars scalars, ulong n, int op, IntegerParams k) {
  ternary_strided<int64_t>(a, b, c, out, l, scalars.value, n, op, params<int64_t>(k));
}

kernel void unary_typed_f32(global const char* a, global char* out, StridedLayout l, ulong n, int op,
                            FloatParams k, uint types) {
  const global char* in[1] = {a};
  typed_strided<float, 1>(in, out, l, l.scalar, n, op, params<float>(k), types);
}
kernel void binary_typed_f32(global const char* a, global const char* b, global char* out, StridedLayout l, ulong n,
                             int op, FloatParams k, uint types) {
  const global char* in[2] = {a, b};
  typed_strided<float, 2>(in, out, l, l.scalar, n, op, params<float>(k), types);
}
kernel void ternary_typed_f32(global const char* a, global const char* b, global const char* c, global char* out,
                              StridedLayout l, ulong n, int op, FloatParams k, uint types) {
  const global char* in[3] = {a, b, c};
  typed_strided<float, 3>(in, out, l, l.scalar, n, op, params<float>(k), types);
}

TYPED_KERNELS_WITH_SCALARS(long, IntegerScalars, IntegerParams, i64)

// FILL: the value's bits in the output's dtype, converted on the host, stored at operand 0's strides. One kernel
// per element size covers every dtype.
template <class Bits>
inline void fill(global Bits* out, const StridedLayout& l, uint64_t n, uint64_t bits) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[1];
  offsets_of<1>(i, n, l, at);
  out[at[0]] = static_cast<Bits>(bits);
}
kernel void fill_b8(global uchar* out, StridedLayout l, ulong n, ulong bits) { fill(out, l, n, bits); }
kernel void fill_b16(global ushort* out, StridedLayout l, ulong n, ulong bits) { fill(out, l, n, bits); }
kernel void fill_b32(global uint* out, StridedLayout l, ulong n, ulong bits) { fill(out, l, n, bits); }
kernel void fill_b64(global ulong* out, StridedLayout l, ulong n, ulong bits) { fill(out, l, n, bits); }

// ARANGE: out[i * stride] = start + i * step in the compute type of CUDA's kernel (elementwise_ops.cuh): float for
// float32, float16 and bfloat16 outputs (those two stored through element_types.h), int64 for integer ones.
template <class T, class Out>
inline void arange(global Out* out, int64_t stride, uint64_t n, T start, T step) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const int64_t at = static_cast<int64_t>(i);
  out[at * stride] = static_cast<Out>(hal_gpu::ew::arange_at(start, step, at));
}
kernel void arange_f32(global float* out, long stride, ulong n, float start, float step) {
  arange(out, stride, n, start, step);
}
kernel void arange_typed_f32(global char* out, long stride, ulong n, float start, float step, int type) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const int64_t at = static_cast<int64_t>(i);
  store_float(out, type, at * stride, hal_gpu::ew::arange_at(start, step, at));
}
kernel void arange_i64(global long* out, long stride, ulong n, long start, long step) {
  arange(out, stride, n, start, step);
}
kernel void arange_i32(global int* out, long stride, ulong n, long start, long step) {
  arange(out, stride, n, start, step);
}
