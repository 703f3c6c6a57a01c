// Elementwise ops on contiguous float32 tensors, as C++ for OpenCL compiled to SPIR-V: the math is the
// portable kernel library's (elementwise_ops.cuh, the same functions the CUDA and HIP builds run), chosen by
// the op id at run time. The build compiles this file to SPIR-V and embeds it in the adapters that run SPIR-V
// (../CMakeLists.txt); ../launch_plan.cpp says which op launches which kernel with which arguments.
// tests/python/test_spirv_kernels.py checks every op of the module against PyTorch's on an OpenCL device.
#include "kernels/elementwise_ops.cuh"

using hal_gpu::ew::Params;
using hal_gpu::ew::apply_runtime;

Params<float> params(float s0, int mode) {
  Params<float> p;
  p.s0 = s0;
  p.mode = mode;
  return p;
}

kernel void unary_f32(global const float* a, global float* out, ulong n, int op, float s0, int mode) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v[1] = {a[i]};
  out[i] = apply_runtime<1, float>(op, v, params(s0, mode));
}

kernel void binary_f32(global const float* a, global const float* b, global float* out, ulong n, int op, float s0,
                       int mode) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v[2] = {a[i], b[i]};
  out[i] = apply_runtime<2, float>(op, v, params(s0, mode));
}

kernel void ternary_f32(global const float* a, global const float* b, global const float* c, global float* out,
                        ulong n, int op, float s0, int mode) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v[3] = {a[i], b[i], c[i]};
  out[i] = apply_runtime<3, float>(op, v, params(s0, mode));
}
