// The pooling kernels' entry points (pooling.cl: float32, float16 and bfloat16 accumulated in float32; float64.cl:
// float64) around the kernel library's pooling bodies (gpu_kernels/kernels/pooling.cuh). POOLING_KERNELS(T, Acc,
// suffix) defines max_pool2d_<suffix>, avg_pool2d_<suffix>, adaptive_{avg,max}_pool2d_<suffix> and their
// backward kernels. C++ for OpenCL only.
#pragma once

#include "kernels/accumulate.cuh"  // the storage <-> accumulation conversions the shared bodies expect
#include "kernels/pooling.cuh"

using namespace hal_gpu::pooling;

// One set of entry points per storage type T, accumulated in Acc, named with its suffix. Work-items past `total`
// (runtimes may round the range up) do nothing.
#define POOLING_KERNELS(T, Acc, suffix)                                                                                \
  kernel void max_pool2d_##suffix(global const T* x, global T* y, global long* indices, Geometry g, Window k,          \
                                  ulong total) {                                                                       \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) max_pool_forward_at<T, Acc>(i, x, y, indices, g, k);                                                \
  }                                                                                                                    \
  kernel void max_pool2d_backward_##suffix(global const T* dy, global const long* indices, global T* dx, Geometry g,   \
                                           Window k, ulong total) {                                                    \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) max_pool_backward_at<T, Acc>(i, dy, indices, dx, g, k);                                             \
  }                                                                                                                    \
  kernel void avg_pool2d_##suffix(global const T* x, global T* y, Geometry g, Window k, ulong total) {                 \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) avg_pool_forward_at<T, Acc>(i, x, y, g, k);                                                         \
  }                                                                                                                    \
  kernel void avg_pool2d_backward_##suffix(global const T* dy, global T* dx, Geometry g, Window k, ulong total) {      \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) avg_pool_backward_at<T, Acc>(i, dy, dx, g, k);                                                      \
  }                                                                                                                    \
  kernel void adaptive_avg_pool2d_##suffix(global const T* x, global T* y, Geometry g, ulong total) {                  \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) adaptive_pool_forward_at<T, Acc, false>(i, x, y, nullptr, g);                                       \
  }                                                                                                                    \
  kernel void adaptive_avg_pool2d_backward_##suffix(global const T* dy, global T* dx, Geometry g, ulong total) {       \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) adaptive_pool_backward_at<T, Acc, false>(i, dy, nullptr, dx, g);                                    \
  }                                                                                                                    \
  kernel void adaptive_max_pool2d_##suffix(global const T* x, global T* y, global long* indices, Geometry g,           \
                                           ulong total) {                                                              \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) adaptive_pool_forward_at<T, Acc, true>(i, x, y, indices, g);                                        \
  }                                                                                                                    \
  kernel void adaptive_max_pool2d_backward_##suffix(global const T* dy, global const long* indices, global T* dx,      \
                                                    Geometry g, ulong total) {                                         \
    const uint64_t i = get_global_id(0);                                                                               \
    if (i < total) adaptive_pool_backward_at<T, Acc, true>(i, dy, indices, dx, g);                                     \
  }

