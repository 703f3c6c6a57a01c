// What the normalization kernels (batch_norm.cu, group_norm.cu, layer_norm.cu) share beyond their
// parameters (param_vector.cuh): a block per row of contiguous elements (its thread count and its mean and
// variance passes), and the first stage of their deterministic column sums (a block of kColumnTile columns x
// kRowLanes row lanes, then the lanes summed in a fixed order). Written in gpu_runtime.h's thread model alone, so
// the SPIR-V kernels (spirv_kernels/kernels/layer_norm.cl) compile it too; host code (HAL_GPU_HOST_ONLY: the
// SPIR-V launch plans) reads the launch shapes alone.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

#include "kernels/accumulate.cuh"
#include "kernels/gpu_runtime.h"

namespace hal_gpu {

// Threads of a block that takes one row of n elements: whole warps, 32 to 512.
inline int threads_for_row(int64_t n) {
  int64_t t = ((n + 31) / 32) * 32;
  if (t > 512) t = 512;
  if (t < 32) t = 32;
  return static_cast<int>(t);
}

constexpr int kColumnTile = 32, kRowLanes = 8;

// Chunks of M rows for the column sums' first stage: at most 1024 chunks, at least 64 rows each (a multiple
// of the row lanes), and the column tiles of N columns.
struct ColumnChunks {
  int64_t rows_per_chunk, chunks, column_tiles;
};
inline ColumnChunks column_chunks(int64_t M, int64_t N) {
  ColumnChunks c;
  c.rows_per_chunk = (M + 1023) / 1024;
  if (c.rows_per_chunk < 64) c.rows_per_chunk = 64;
  c.rows_per_chunk = (c.rows_per_chunk + kRowLanes - 1) / kRowLanes * kRowLanes;
  c.chunks = (M + c.rows_per_chunk - 1) / c.rows_per_chunk;
  c.column_tiles = (N + kColumnTile - 1) / kColumnTile;
  return c;
}

#if !defined(HAL_GPU_HOST_ONLY)
// The mean of the row's n elements, then their biased variance around it: two passes over a row that stays
// in cache (more accurate than one-pass sums of squares). Every thread of the block calls it and gets both.
template <class T, class Acc>
__device__ __forceinline__ void row_mean_var(const T* row, int64_t n, Acc* shared, Acc& mean, Acc& var) {
  Acc s = 0;
  for (int64_t j = thread_index(0); j < n; j += block_threads(0)) s += to_acc<Acc>(row[j]);
  mean = block_reduce<Acc, false>(s, shared) / static_cast<Acc>(n);
  Acc q = 0;
  for (int64_t j = thread_index(0); j < n; j += block_threads(0)) {
    const Acc d = to_acc<Acc>(row[j]) - mean;
    q += d * d;
  }
  var = block_reduce<Acc, false>(q, shared) / static_cast<Acc>(n);
}

// Two sums per column over a (kColumnTile, kRowLanes) block: each thread's partial sums a and b of its
// column, added over the row lanes in a fixed order (results do not depend on scheduling). Every thread
// calls it (it synchronizes the block); true, with the column's totals in a and b, in row lane 0 of a
// column that exists.
template <class Acc>
__device__ __forceinline__ bool sum_row_lanes(Acc (&tile_a)[kRowLanes][kColumnTile + 1],
                                              Acc (&tile_b)[kRowLanes][kColumnTile + 1], Acc& a, Acc& b,
                                              bool column_exists) {
  const unsigned column = thread_index(0), lane = thread_index(1);
  tile_a[lane][column] = a;
  tile_b[lane][column] = b;
  block_barrier();
  if (lane != 0 || !column_exists) return false;
  Acc ta = 0, tb = 0;
  for (int k = 0; k < kRowLanes; ++k) {  // fixed order: deterministic
    ta += tile_a[k][column];
    tb += tile_b[k][column];
  }
  a = ta;
  b = tb;
  return true;
}

#endif  // !HAL_GPU_HOST_ONLY

}  // namespace hal_gpu
