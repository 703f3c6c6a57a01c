// The layer norm family's kernel bodies, one source for nvcc, hipcc and clang's SPIR-V (layer_norm.cu and
// spirv_kernels/kernels/layer_norm.cl declare the entry points around them): LAYER_NORM and LAYER_NORM_BACKWARD
// over x [M, N] (contiguous), in gpu_runtime.h's thread model alone, their shared memory passed in.
//
// Forward: a block per row computes the mean, then the biased variance around it (two passes over the row,
// which stays in cache: more accurate than one-pass sums of squares), and writes y, mean and rstd.
// Backward: a block per row for dx; dweight and dbias (sums over the M rows) sum fixed chunks of rows per column
// tile, in a fixed order (no floating-point atomics: results do not depend on scheduling). CUDA and HIP run many
// chunks and sum them in a second kernel (layer_norm.cu); the SPIR-V kernels run one chunk, straight into the
// outputs.
//
// The parameters are read through the entry point's accessors: weight(j) and bias(j) give element j in the
// accumulation type (1 and 0 where the parameter is absent); store_dx(row, j, v) writes dx. Every thread of the
// block calls each body (they synchronize the block).
#pragma once

#include "kernels/accumulate.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/norm_rows.cuh"

namespace hal_gpu {

__device__ __forceinline__ float rsqrt_acc(float v) { return rsqrtf(v); }
__device__ __forceinline__ double rsqrt_acc(double v) { return rsqrt(v); }

// `shared`: accumulate.cuh's block_reduce room.
template <class T, class Acc, class Weight, class Bias>
__device__ __forceinline__ void layer_norm_forward_rows(const T* x, Weight weight, Bias bias, T* y, Acc* mean_out,
                                                        Acc* rstd_out, int64_t M, int64_t N, Acc eps, Acc* shared) {
  for (int64_t row = block_index(0); row < M; row += grid_blocks(0)) {
    const T* xr = x + row * N;
    Acc mean, var;
    row_mean_var<T, Acc>(xr, N, shared, mean, var);
    const Acc rstd = rsqrt_acc(var + eps);
    T* yr = y + row * N;
    for (int64_t j = thread_index(0); j < N; j += block_threads(0)) {
      const Acc v = (to_acc<Acc>(xr[j]) - mean) * rstd;
      yr[j] = from_acc<T>(v * weight(j) + bias(j));
    }
    if (thread_index(0) == 0) {
      if (mean_out) mean_out[row] = mean;
      if (rstd_out) rstd_out[row] = rstd;
    }
  }
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * weight, xhat = (x - mean) * rstd.
template <class T, class Acc, class Weight, class StoreDx>
__device__ __forceinline__ void layer_norm_backward_dx_rows(const T* dy, const T* x, const Acc* mean, const Acc* rstd,
                                                            Weight weight, StoreDx store_dx, int64_t M, int64_t N,
                                                            Acc* shared) {
  for (int64_t row = block_index(0); row < M; row += grid_blocks(0)) {
    const T* dyr = dy + row * N;
    const T* xr = x + row * N;
    const Acc mu = mean[row], rs = rstd[row];
    Acc sg = 0, sgx = 0;
    for (int64_t j = thread_index(0); j < N; j += block_threads(0)) {
      const Acc g = to_acc<Acc>(dyr[j]) * weight(j);
      sg += g;
      sgx += g * (to_acc<Acc>(xr[j]) - mu) * rs;
    }
    const Acc mean_g = block_reduce<Acc, false>(sg, shared) / static_cast<Acc>(N);
    const Acc mean_gx = block_reduce<Acc, false>(sgx, shared) / static_cast<Acc>(N);
    for (int64_t j = thread_index(0); j < N; j += block_threads(0)) {
      const Acc g = to_acc<Acc>(dyr[j]) * weight(j);
      const Acc xhat = (to_acc<Acc>(xr[j]) - mu) * rs;
      store_dx(row, j, rs * (g - mean_g - xhat * mean_gx));
    }
  }
}

// dweight's and dbias's sums over one chunk of rows: block (kColumnTile, kRowLanes) sums columns
// [kColumnTile * block_index(0), +kColumnTile) over the rows of chunk block_index(1) into sums_w[chunk][column]
// and sums_b[chunk][column] (either may be null: not wanted), stored as Sum: the accumulation type (CUDA's and
// HIP's partial sums), or the parameters' storage type where one chunk takes every row (the SPIR-V kernels).
template <class T, class Acc, class Sum = Acc>
__device__ __forceinline__ void layer_norm_backward_column_sums(const T* dy, const T* x, const Acc* mean,
                                                                const Acc* rstd, Sum* sums_w, Sum* sums_b, int64_t M,
                                                                int64_t N, int64_t rows_per_chunk,
                                                                Acc (&tile_w)[kRowLanes][kColumnTile + 1],
                                                                Acc (&tile_b)[kRowLanes][kColumnTile + 1]) {
  const int64_t col = static_cast<int64_t>(block_index(0)) * kColumnTile + thread_index(0);
  const int64_t chunk = block_index(1);
  const int64_t row_begin = chunk * rows_per_chunk;
  const int64_t row_end = row_begin + rows_per_chunk < M ? row_begin + rows_per_chunk : M;
  Acc sw = 0, sb = 0;
  if (col < N) {
    for (int64_t row = row_begin + thread_index(1); row < row_end; row += kRowLanes) {
      const Acc g = to_acc<Acc>(dy[row * N + col]);
      sb += g;
      if (sums_w) sw += g * (to_acc<Acc>(x[row * N + col]) - mean[row]) * rstd[row];
    }
  }
  if (sum_row_lanes<Acc>(tile_w, tile_b, sw, sb, col < N)) {
    if (sums_w) sums_w[chunk * N + col] = from_acc<Sum>(sw);
    if (sums_b) sums_b[chunk * N + col] = from_acc<Sum>(sb);
  }
}

}  // namespace hal_gpu
