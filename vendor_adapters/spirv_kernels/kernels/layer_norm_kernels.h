// The layer norm kernels' entry points (layer_norm.cl: float32, float16 and bfloat16 rows accumulated in float32;
// float64.cl: float64), around the kernel library's bodies (gpu_kernels/kernels/layer_norm_rows.cuh).
// LAYER_NORM_KERNELS(T, Acc, suffix) defines layer_norm_forward_<suffix>, layer_norm_backward_dx_<suffix> and
// layer_norm_backward_columns_<suffix>. C++ for OpenCL only.
#pragma once

#include "kernels/layer_norm_rows.cuh"

// A [N] parameter (weight, bias) of x's storage type read in the accumulation type, or `absent` where the plan says
// it is absent (its pointer then a stand-in).
template <class T, class Acc>
struct Param {
  const global T* values;
  int present;
  Acc absent;
  Acc operator()(int64_t j) const { return present ? hal_gpu::to_acc<Acc>(values[j]) : absent; }
};

template <class T, class Acc>
inline void forward(global const T* x, global const T* weight, global const T* bias, global T* y, global Acc* mean,
                    global Acc* rstd, long M, long N, Acc eps, int has_weight, int has_bias) {
  hal_gpu::layer_norm_forward_rows<T, Acc>(x, Param<T, Acc>{weight, has_weight, Acc(1)},
                                           Param<T, Acc>{bias, has_bias, Acc(0)}, y, mean, rstd, M, N, eps, nullptr);
}

template <class T, class Acc>
inline void backward_dx(global const T* dy, global const T* x, global const Acc* mean, global const Acc* rstd,
                        global const T* weight, global T* dx, long M, long N, int has_weight) {
  hal_gpu::layer_norm_backward_dx_rows<T, Acc>(
      dy, x, mean, rstd, Param<T, Acc>{weight, has_weight, Acc(1)},
      [=](int64_t row, int64_t j, Acc v) { dx[row * N + j] = hal_gpu::from_acc<T>(v); }, M, N, nullptr);
}

// One set of entry points per storage type T, accumulated (and the statistics stored) in Acc: the suffix names
// it. The column sums write dweight and dbias ([N], dense), either absent where its flag is 0 (its pointer then a
// stand-in).
#define LAYER_NORM_KERNELS(T, Acc, suffix)                                                                             \
  kernel void layer_norm_forward_##suffix(global const T* x, global const T* weight, global const T* bias,             \
                                          global T* y, global Acc* mean, global Acc* rstd, long M, long N,             \
                                          Acc eps, int has_weight, int has_bias) {                                     \
    forward<T, Acc>(x, weight, bias, y, mean, rstd, M, N, eps, has_weight, has_bias);                                  \
  }                                                                                                                    \
  kernel void layer_norm_backward_dx_##suffix(global const T* dy, global const T* x, global const Acc* mean,           \
                                              global const Acc* rstd, global const T* weight, global T* dx,            \
                                              long M, long N, int has_weight) {                                        \
    backward_dx<T, Acc>(dy, x, mean, rstd, weight, dx, M, N, has_weight);                                              \
  }                                                                                                                    \
  kernel void layer_norm_backward_columns_##suffix(global const T* dy, global const T* x, global const Acc* mean,      \
                                                   global const Acc* rstd, global T* dweight, global T* dbias,         \
                                                   long M, long N, int has_dweight, int has_dbias) {                   \
    local Acc tile_w[hal_gpu::kRowLanes][hal_gpu::kColumnTile + 1];                                                    \
    local Acc tile_b[hal_gpu::kRowLanes][hal_gpu::kColumnTile + 1];                                                    \
    hal_gpu::layer_norm_backward_column_sums<T, Acc, T>(dy, x, mean, rstd, has_dweight ? dweight : nullptr,            \
                                                          has_dbias ? dbias : nullptr, M, N, M, tile_w, tile_b);       \
  }

