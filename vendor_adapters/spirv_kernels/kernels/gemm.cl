// GEMM in float32 for the runtimes that take SPIR-V (the OpenCL adapter's own, as issue 13 allows; no vendor
// BLAS is assumed): out = alpha * a @ b + beta * c over any strides (transposed operands are strides), batched
// in the launch's third dimension. A work-group of kThreads x kThreads work-items computes a kBlock x kBlock
// block of the output, each work-item a kWork x kWork patch of it held in registers; slices kDepth deep of a
// and b are staged in local memory, so each element of a and b is read from global memory N / kBlock and
// M / kBlock times rather than N and M times, and each local value feeds kWork multiply-adds. Edges are padded
// with zeros in local memory.
#include "kernels/gpu_runtime.h"
#include "kernel_layouts.h"

using hal_spirv::GemmShape;

constexpr int kThreads = 16;  // the plan's work-group is kThreads x kThreads (plan_gemm.cpp)
constexpr int kWork = 4;
constexpr int kBlock = kThreads * kWork;  // 64
constexpr int kDepth = 16;
constexpr int kLoads = kBlock * kDepth / (kThreads * kThreads);  // elements of a (and of b) each work-item stages

kernel void gemm_f32(global const float* a, global const float* b, global const float* c, global float* out,
                     GemmShape g) {
  local float a_tile[kDepth][kBlock + 1];  // a's slice, k-major: a_tile[k][row]
  local float b_tile[kDepth][kBlock + 1];  // b's slice: b_tile[k][column]
  const unsigned tx = get_local_id(0), ty = get_local_id(1), lid = ty * kThreads + tx;
  const int64_t row0 = static_cast<int64_t>(get_group_id(1)) * kBlock;
  const int64_t col0 = static_cast<int64_t>(get_group_id(0)) * kBlock;
  const int64_t batch = get_global_id(2);
  a += batch * g.a[0];
  b += batch * g.b[0];
  float acc[kWork][kWork] = {};
  for (int64_t k0 = 0; k0 < g.k; k0 += kDepth) {
    // Loops of constant trip count are unrolled throughout: as loops, llvm-spirv-15 wrote exit blocks before
    // their bodies, which spirv-val rejects.
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      // Unsigned: divisions by the powers of two are shifts (signed ones left a `freeze` llvm-spirv-15 refuses).
      const unsigned e = lid + l * kThreads * kThreads;
      const unsigned r = e / kDepth, ka = e % kDepth;  // consecutive work-items walk a row of a along k
      const int64_t row = row0 + r, k = k0 + ka;
      a_tile[ka][r] = row < g.m && k < g.k ? a[row * g.a[1] + k * g.a[2]] : 0.0f;
      const unsigned kb = e / kBlock, col_in = e % kBlock;  // and a row of b along its columns
      const int64_t col = col0 + col_in, kk = k0 + kb;
      b_tile[kb][col_in] = kk < g.k && col < g.n ? b[kk * g.b[1] + col * g.b[2]] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      float av[kWork], bv[kWork];
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
      float result = g.alpha * acc[i][j];
      // beta == 0 ignores c entirely (NaN and Inf in c do not propagate), as BLAS and PyTorch define it. c may
      // be the output itself (addmm_): this work-item reads each of its elements before writing it.
      if (g.beta != 0.0f) result = fma(g.beta, c[batch * g.c[0] + row * g.c[1] + col * g.c[2]], result);
      out[batch * g.out[0] + row * g.out[1] + col * g.out[2]] = result;
    }
  }
}
