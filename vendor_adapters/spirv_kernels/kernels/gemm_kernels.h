// The GEMM kernel of the SPIR-V modules (gemm.cl: float32, float16 and bfloat16 accumulated in float32; float64.cl:
// float64), for the runtimes that take SPIR-V (no vendor BLAS is assumed): out = alpha * a @ b + beta * c over any
// strides (transposed operands are strides), batched in the launch's third dimension. A work-group of kThreads x
// kThreads work-items computes a kBlock x kBlock block of the output, each work-item a kWork x kWork patch of it
// held in registers; slices kDepth deep of a and b are staged in local memory (in the accumulation type), so each
// element of a and b is read from global memory N / kBlock and M / kBlock times rather than N and M times, and
// each local value feeds kWork multiply-adds. Edges are padded with zeros in local memory. C++ for OpenCL only.
#pragma once

#include "kernels/accumulate.cuh"  // storage <-> accumulation conversions (float16_bits, bfloat16_bits)
#include "kernel_layouts.h"


using hal_spirv::GemmShape;

constexpr int kThreads = 16;  // the plan's work-group is kThreads x kThreads (plan_gemm.cpp)
constexpr int kWork = 4;
constexpr int kBlock = kThreads * kWork;  // 64
constexpr int kDepth = 16;
constexpr int kLoads = kBlock * kDepth / (kThreads * kThreads);  // elements of a (and of b) each work-item stages

// out = alpha * a @ b + beta * c of storage type T (float, float16_bits, bfloat16_bits, double), accumulated in
// Acc with alpha and beta `alpha` and `beta` (GemmShape's float ones, or its float64 ones for double). The tiles
// are local arrays of the kernel that calls this (OpenCL allows local variables only in kernels).
template <class T, class Acc>
inline void gemm_tiles(global const T* a, global const T* b, global const T* c, global T* out, const GemmShape& g,
                       Acc alpha, Acc beta, local Acc (*a_tile)[kBlock + 1], local Acc (*b_tile)[kBlock + 1]) {
  const unsigned tx = get_local_id(0), ty = get_local_id(1), lid = ty * kThreads + tx;
  const int64_t row0 = static_cast<int64_t>(get_group_id(1)) * kBlock;
  const int64_t col0 = static_cast<int64_t>(get_group_id(0)) * kBlock;
  const int64_t batch = get_global_id(2);
  a += batch * g.a[0];
  b += batch * g.b[0];
  Acc acc[kWork][kWork] = {};
  for (int64_t k0 = 0; k0 < g.k; k0 += kDepth) {
    // Loops of constant trip count are unrolled throughout: as loops, llvm-spirv-15 wrote exit blocks before
    // their bodies, which spirv-val rejects.
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      // Unsigned: divisions by the powers of two are shifts (signed ones left a `freeze` llvm-spirv-15 refuses).
      const unsigned e = lid + l * kThreads * kThreads;
      const unsigned r = e / kDepth, ka = e % kDepth;  // consecutive work-items walk a row of a along k
      const int64_t row = row0 + r, k = k0 + ka;
      a_tile[ka][r] = row < g.m && k < g.k ? hal_gpu::to_acc<Acc>(a[row * g.a[1] + k * g.a[2]]) : Acc(0);
      const unsigned kb = e / kBlock, col_in = e % kBlock;  // and a row of b along its columns
      const int64_t col = col0 + col_in, kk = k0 + kb;
      b_tile[kb][col_in] = kk < g.k && col < g.n ? hal_gpu::to_acc<Acc>(b[kk * g.b[1] + col * g.b[2]]) : Acc(0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      Acc av[kWork], bv[kWork];
#pragma unroll
      for (unsigned i = 0; i < kWork; ++i) av[i] = a_tile[k][ty * kWork + i];
#pragma unroll
      for (unsigned j = 0; j < kWork; ++j) bv[j] = b_tile[k][tx * kWork + j];
#pragma unroll
      for (int i = 0; i < kWork; ++i) {
#pragma unroll
        for (int j = 0; j < kWork; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#pragma unroll
  for (int i = 0; i < kWork; ++i) {
#pragma unroll
    for (int j = 0; j < kWork; ++j) {
      const int64_t row = row0 + ty * kWork + i, col = col0 + tx * kWork + j;
      if (row >= g.m || col >= g.n) continue;
      Acc result = alpha * acc[i][j];
      // beta == 0 ignores c entirely (NaN and Inf in c do not propagate), as BLAS and PyTorch define it. c may
      // be the output itself (addmm_): this work-item reads each of its elements before writing it.
      if (beta != Acc(0)) {
        result = fma(beta, hal_gpu::to_acc<Acc>(c[batch * g.c[0] + row * g.c[1] + col * g.c[2]]), result);
      }
      out[batch * g.out[0] + row * g.out[1] + col * g.out[2]] = hal_gpu::from_acc<T>(result);
    }
  }
}

// One entry point per storage type T, accumulated in Acc, named with its suffix; ALPHA and BETA are GemmShape's
// alpha and beta in Acc's precision (expressions of g).
#define GEMM_KERNEL(T, Acc, suffix, ALPHA, BETA)                                                                     \
  kernel void gemm_##suffix(global const T* a, global const T* b, global const T* c, global T* out, GemmShape g) { \
    local Acc a_tile[kDepth][kBlock + 1]; /* a's slice, k-major: a_tile[k][row] */                                  \
    local Acc b_tile[kDepth][kBlock + 1]; /* b's slice: b_tile[k][column] */                                        \
    gemm_tiles<T, Acc>(a, b, c, out, g, ALPHA, BETA, a_tile, b_tile);                                            \
  }
