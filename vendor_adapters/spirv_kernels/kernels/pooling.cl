// The pooling family for the runtimes that take SPIR-V, in float32: MAX_POOL2D, AVG_POOL2D, ADAPTIVE_AVG_POOL2D,
// ADAPTIVE_MAX_POOL2D and their backward ops, contiguous or channels-last. The entry points around the kernel
// library's pooling bodies (gpu_kernels/kernels/pooling.cuh, the same source the CUDA and HIP kernels compile): a
// work-item per element, of y forward and of x backward (the gradients gather). plan_pooling.cpp launches them over
// the problem that read_pooling() read, as the CUDA and HIP launch does.
#include "kernels/accumulate.cuh"  // the storage <-> accumulation conversions the shared bodies expect
#include "kernels/pooling.cuh"

using namespace hal_gpu::pooling;

// Work-items past `total` (runtimes may round the range up) do nothing.

kernel void max_pool2d_f32(global const float* x, global float* y, global long* indices, Geometry g, Window k,
                           ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) max_pool_forward_at<float, float>(i, x, y, indices, g, k);
}

kernel void max_pool2d_backward_f32(global const float* dy, global const long* indices, global float* dx,
                                    Geometry g, Window k, ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) max_pool_backward_at<float, float>(i, dy, indices, dx, g, k);
}

kernel void avg_pool2d_f32(global const float* x, global float* y, Geometry g, Window k, ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) avg_pool_forward_at<float, float>(i, x, y, g, k);
}

kernel void avg_pool2d_backward_f32(global const float* dy, global float* dx, Geometry g, Window k, ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) avg_pool_backward_at<float, float>(i, dy, dx, g, k);
}

kernel void adaptive_avg_pool2d_f32(global const float* x, global float* y, Geometry g, ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) adaptive_pool_forward_at<float, float, false>(i, x, y, nullptr, g);
}

kernel void adaptive_avg_pool2d_backward_f32(global const float* dy, global float* dx, Geometry g, ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) adaptive_pool_backward_at<float, float, false>(i, dy, nullptr, dx, g);
}

kernel void adaptive_max_pool2d_f32(global const float* x, global float* y, global long* indices, Geometry g,
                                    ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) adaptive_pool_forward_at<float, float, true>(i, x, y, indices, g);
}

kernel void adaptive_max_pool2d_backward_f32(global const float* dy, global const long* indices, global float* dx,
                                             Geometry g, ulong total) {
  const uint64_t i = get_global_id(0);
  if (i < total) adaptive_pool_backward_at<float, float, true>(i, dy, indices, dx, g);
}
