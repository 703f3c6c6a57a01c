// The typed elementwise walk of the SPIR-V kernels: a work-item per output element, each operand loaded from its
// own element type into the compute type, the library's op applied (elementwise_ops.cuh's apply_runtime), the
// result stored in the output's type. elementwise.cl instantiates it for float32 and int64, float64.cl for
// float64. C++ for OpenCL only.
#pragma once

#include "kernels/elementwise_ops.cuh"
#include "element_types.h"
#include "kernel_layouts.h"
#include "strided_walk.h"

// The strided walk with operands of several element types, operand k's type type_of(types, k) (inputs first, the
// output last), in the compute type T: float32 where some operand is floating (float16, bfloat16, bool
// conditions and results, integer inputs), int64 where every operand is bool or an integer (int32 + int32,
// bool & bool; the int64 scalar operands' values then in an IntegerScalars), float64 where some operand is
// (float64.cl's kernels, DoubleScalars).

// The kernel argument's scalars as the shared math's Params.
template <class T, class Layout>
hal_gpu::ew::Params<T> params(const Layout& k) {
  hal_gpu::ew::Params<T> p;
  p.s0 = k.s0;
  p.s1 = k.s1;
  p.s2 = k.s2;
  p.mode = k.mode;
  return p;
}
template <class T, int N>
__forceinline__ void typed_strided(const global char* const* in, global char* out, const StridedLayout& l,
                                   const T* scalar, uint64_t n, int op, const hal_gpu::ew::Params<T>& p,
                                   uint32_t types) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[N + 1];
  offsets_of<N + 1>(i, n, l, at);
  T v[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    // Loaded even for a scalar operand (the plan points it at the output's first element, with the output's type):
    // a conditional load here puts the op's blocks before the operands' in llvm-spirv-15's output (spirv-val
    // rejects that).
    const T loaded = load_as<T>(in[k], type_of(types, k), at[k]);
    v[k] = (l.scalar_mask >> k) & 1 ? scalar[k] : loaded;
  }
  store_as(out, type_of(types, N), at[N], hal_gpu::ew::apply_runtime<N, T>(op, v, p));
}


// The unary, binary and ternary typed kernels of compute type T whose scalar operands' values travel in a Scalars
// struct (int64's IntegerScalars, float64's DoubleScalars; float32's are the layout's own), named with the suffix.
#define TYPED_KERNELS_WITH_SCALARS(T, Scalars, KernelParams, suffix)                                                   \
  kernel void unary_typed_##suffix(global const char* a, global char* out, StridedLayout l, Scalars scalars, ulong n,  \
                                   int op, KernelParams k, uint types) {                                               \
    const global char* in[1] = {a};                                                                                    \
    typed_strided<T, 1>(in, out, l, scalars.value, n, op, params<T>(k), types);                                        \
  }                                                                                                                    \
  kernel void binary_typed_##suffix(global const char* a, global const char* b, global char* out, StridedLayout l,     \
                                    Scalars scalars, ulong n, int op, KernelParams k, uint types) {                    \
    const global char* in[2] = {a, b};                                                                                 \
    typed_strided<T, 2>(in, out, l, scalars.value, n, op, params<T>(k), types);                                        \
  }                                                                                                                    \
  kernel void ternary_typed_##suffix(global const char* a, global const char* b, global const char* c,                 \
                                     global char* out, StridedLayout l, Scalars scalars, ulong n, int op,              \
                                     KernelParams k, uint types) {                                                     \
    const global char* in[3] = {a, b, c};                                                                              \
    typed_strided<T, 3>(in, out, l, scalars.value, n, op, params<T>(k), types);                                        \
  }
