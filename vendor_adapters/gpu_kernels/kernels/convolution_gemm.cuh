// The convolution family's kernel body, one source for nvcc, hipcc and clang's SPIR-V (convolution.cu and
// spirv_kernels/kernels/convolution.cl declare the entry points around it): HAL_OP_CONVOLUTION and its two
// backward ops as an implicit GEMM per group, C[m, n] = sum_k A[m, k] B[k, n], whose operands are read straight
// out of the convolution's tensors with their strides (no im2col buffer; any layout, channels-last included).
// With Cg = C / groups and Kg = K / groups input and output channels per group:
//   forward          y[n, g*Kg + o, q]:  m = (n, q), n = o, k = (c, r);
//                    A = x at q*stride - pad + r*dil, B = w[o, c, r]
//   backward input   dx[n, g*Cg + c, s]: m = (n, s), n = c, k = (o, r);
//                    A = dy at (s + pad - r*dil) / stride where that divides and lies inside, B = w[o, c, r]
//   backward weight  dw[g*Kg + o, c, r]: m = o, n = (c, r), k = (n, q);
//                    A = dy[n, o, q], B = x at q*stride - pad + r*dil
// where q runs over the output's spatial points, s over the input's, r over the filter's. A block computes a
// kConvTileM x kConvTileN tile of C through kConvTileK-deep slices of A and B staged in shared (local) memory.
// A portable kernel for where no vendor library serves (AMD without MIOpen, SPIR-V devices, what cuDNN declines):
// correct for every problem the ABI allows, not tuned like cuDNN.
#pragma once

#include "kernels/accumulate.cuh"  // to_acc / from_acc: the storage <-> accumulation conversions
#include "kernels/convolution_geometry.h"
#include "kernels/gpu_runtime.h"

namespace hal_gpu {

// i as (outer, at[0], at[1], at[2]) over the spatial sizes (at[2] fastest); returns outer. Remainders come from
// the quotients (llvm-spirv-15 cannot translate the `freeze` that a div/rem pair gives). Loops of constant trip
// count are unrolled throughout: as loops, llvm-spirv-15 writes exit blocks before their bodies (spirv-val rejects
// that; spirv_kernels/kernels/gemm.cl met it first).
__device__ __forceinline__ int32_t split_spatial(int32_t i, const int32_t* size, int32_t* at) {
  #pragma unroll
  for (int d = kConvSpatial - 1; d >= 0; --d) {
    const int32_t q = i / size[d];
    at[d] = i - q * size[d];
    i = q;
  }
  return i;
}

// The offset of a spatial point, `strides` (a tensor's, [N, C, spatial...]) apart along each dim, whose coordinate
// along dim d is coordinate(d, &inside_d); false where some coordinate lies outside. Branch-free (every dim is
// checked): fewer divergent paths on GPUs, and a control flow that llvm-spirv-15 writes in an order spirv-val
// accepts.
template <class Coordinate>
__device__ __forceinline__ bool point_offset(const int32_t* strides, Coordinate coordinate, int32_t* offset) {
  int32_t o = 0;
  bool inside = true;
#pragma unroll
  for (int d = 0; d < kConvSpatial; ++d) {
    bool ok = true;
    const int32_t c = coordinate(d, &ok);
    inside = inside & ok;
    o += c * strides[2 + d];
  }
  *offset = o;
  return inside;
}

// The input element that filter point r of output point q reads; false in the padding.
__device__ __forceinline__ bool input_point(const ConvGeometry& g, const int32_t* q, const int32_t* r,
                                            int32_t* offset) {
  return point_offset(g.x_stride, [&](int d, bool* ok) {
    const int32_t i = q[d] * g.stride[d] - g.pad[d] + r[d] * g.dilation[d];
    *ok = (i >= 0) & (i < g.in[d]);
    return i;
  }, offset);
}

// The output-gradient element that input point s meets through filter point r; false where no output point does
// (the stride skips it, or it lies outside).
__device__ __forceinline__ bool output_point(const ConvGeometry& g, const int32_t* s, const int32_t* r,
                                             int32_t* offset) {
  return point_offset(g.y_stride, [&](int d, bool* ok) {
    const int32_t t = s[d] + g.pad[d] - r[d] * g.dilation[d];
    const int32_t q = t / g.stride[d];
    *ok = (t >= 0) & (q * g.stride[d] == t) & (q < g.out[d]);
    return q;
  }, offset);
}

__device__ __forceinline__ int32_t spatial_offset(const int32_t* at, const int32_t* strides) {
  return at[0] * strides[2] + at[1] * strides[3] + at[2] * strides[4];
}

// What one thread loads: the A row `m` and the B column `n` of the block's tile (the same index into both
// tiles), decomposed once; load() gives their elements at reduction index k.
template <class T, class Acc, ConvDirection D>
struct ConvLoader {
  const ConvGeometry& g;
  const T* in0;  // x (forward, backward weight) or dy (backward input)
  const T* in1;  // w (forward, backward input) or dy (backward weight)
  bool m_ok, n_ok;
  int32_t m_outer, n_index;       // the batch index of row m (forward, backward input); column n as given
  int32_t m_at[kConvSpatial];     // row m's spatial point (forward: q; backward input: s)
  int32_t n_at[kConvSpatial];     // column n's filter point (backward weight)
  int32_t a_base, b_base;         // the group's and the fixed index's part of the offsets

  __device__ __forceinline__ ConvLoader(const ConvGeometry& geometry, const T* a, const T* b, int32_t group, int32_t m,
                                        int32_t n)
      : g(geometry), in0(a), in1(b), m_ok(m < geometry.gemm_m), n_ok(n < geometry.gemm_n), m_outer(0), n_index(n) {
    const int32_t cg = g.channels / g.groups, kg = g.out_channels / g.groups;
    #pragma unroll
    for (int d = 0; d < kConvSpatial; ++d) m_at[d] = n_at[d] = 0;
    if (D == ConvDirection::Forward) {
      m_outer = split_spatial(m_ok ? m : 0, g.out, m_at);
      a_base = m_outer * g.x_stride[0] + group * cg * g.x_stride[1];
      b_base = (group * kg + n) * g.w_stride[0];
    } else if (D == ConvDirection::BackwardInput) {
      m_outer = split_spatial(m_ok ? m : 0, g.in, m_at);
      a_base = m_outer * g.y_stride[0] + group * kg * g.y_stride[1];
      b_base = group * kg * g.w_stride[0] + n * g.w_stride[1];
    } else {
      const int32_t c = split_spatial(n_ok ? n : 0, g.filter, n_at);
      a_base = (group * kg + m) * g.y_stride[1];
      b_base = (group * cg + c) * g.x_stride[1];
    }
  }

  // Branch-free: an element outside (padding, a row or column past the GEMM's edge, a stride's gap) reads the
  // tensor's first element and is replaced by zero, so the loading has no control flow at all (llvm-spirv-15
  // writes conditional loads inside the tile loop in a block order spirv-val rejects).
  __device__ __forceinline__ void load(int32_t k, bool k_ok, Acc* a, Acc* b) const {
    int32_t at[kConvSpatial];
    int32_t a_offset = 0, b_offset = 0;
    bool a_ok = false, b_ok = false;
    if (D == ConvDirection::Forward) {  // k = (c, r)
      const int32_t c = split_spatial(k, g.filter, at);
      a_ok = input_point(g, m_at, at, &a_offset);
      a_offset += a_base + c * g.x_stride[1];
      b_ok = true;
      b_offset = b_base + c * g.w_stride[1] + spatial_offset(at, g.w_stride);
    } else if (D == ConvDirection::BackwardInput) {  // k = (o, r)
      const int32_t o = split_spatial(k, g.filter, at);
      a_ok = output_point(g, m_at, at, &a_offset);
      a_offset += a_base + o * g.y_stride[1];
      b_ok = true;
      b_offset = b_base + o * g.w_stride[0] + spatial_offset(at, g.w_stride);
    } else {  // k = (n, q)
      const int32_t batch = split_spatial(k, g.out, at);
      a_ok = true;
      a_offset = a_base + batch * g.y_stride[0] + spatial_offset(at, g.y_stride);
      b_ok = input_point(g, at, n_at, &b_offset);
      b_offset += b_base + batch * g.x_stride[0];
    }
    a_ok = a_ok & m_ok & k_ok;
    b_ok = b_ok & n_ok & k_ok;
    const T* a_from = D == ConvDirection::BackwardWeight ? in1 : in0;
    const T* b_from = D == ConvDirection::BackwardWeight ? in0 : in1;
    const Acc a_value = to_acc<Acc>(a_from[a_ok ? a_offset : 0]);
    const Acc b_value = to_acc<Acc>(b_from[b_ok ? b_offset : 0]);
    *a = a_ok ? a_value : Acc(0);
    *b = b_ok ? b_value : Acc(0);
  }
};

// The offset in the op's output of C's element (m, n) for `group`.
template <ConvDirection D>
__device__ __forceinline__ int32_t conv_output_offset(const ConvGeometry& g, int32_t group, int32_t m, int32_t n) {
  int32_t at[kConvSpatial];
  const int32_t cg = g.channels / g.groups, kg = g.out_channels / g.groups;
  if (D == ConvDirection::Forward) {
    const int32_t batch = split_spatial(m, g.out, at);
    return batch * g.y_stride[0] + (group * kg + n) * g.y_stride[1] + spatial_offset(at, g.y_stride);
  } else if (D == ConvDirection::BackwardInput) {
    const int32_t batch = split_spatial(m, g.in, at);
    return batch * g.x_stride[0] + (group * cg + n) * g.x_stride[1] + spatial_offset(at, g.x_stride);
  } else {
    const int32_t c = split_spatial(n, g.filter, at);
    return (group * kg + m) * g.w_stride[0] + c * g.w_stride[1] + spatial_offset(at, g.w_stride);
  }
}

// One block's tile of C, written to the op's output. tile_a and tile_b: kConvTileK x kConvTileM and
// kConvTileK x kConvTileN elements of the block's shared (local) memory. Every thread of the block calls it
// (it has barriers).
template <class T, class Acc, ConvDirection D>
__device__ __forceinline__ void convolution_block(const ConvGeometry& g, const T* in0, const T* in1, T* out,
                                                  Acc* tile_a, Acc* tile_b) {
  const int32_t group = static_cast<int32_t>(block_index(2));
  const int32_t m0 = static_cast<int32_t>(block_index(0)) * kConvTileM;
  const int32_t n0 = static_cast<int32_t>(block_index(1)) * kConvTileN;
  const int32_t tid = static_cast<int32_t>(thread_index(0));
  // Loading: thread tid fills column (tid % kConvTileM) of both tiles' slices, at depths tid / kConvTileM +
  // slice * kRows.
  constexpr int32_t kRows = kConvThreads / kConvTileM;
  static_assert(kConvTileM == kConvTileN, "a loading thread takes the same index in both tiles");
  const int32_t lane = tid % kConvTileM, depth = tid / kConvTileM;
  const ConvLoader<T, Acc, D> loader(g, in0, in1, group, m0 + lane, n0 + lane);
  // Computing: thread (ty, tx) owns rows ty * 4 .. +3 and columns tx * 4 .. +3 of the tile.
  constexpr int32_t kColumnThreads = kConvTileN / kConvThreadTile;
  const int32_t ty = tid / kColumnThreads, tx = tid % kColumnThreads;
  Acc acc[kConvThreadTile][kConvThreadTile];
  #pragma unroll
  for (int i = 0; i < kConvThreadTile; ++i) {
    #pragma unroll
    for (int j = 0; j < kConvThreadTile; ++j) acc[i][j] = Acc(0);
  }
  // At least one slice, even for an empty reduction (its loads are all masked to zero): a loop that always runs
  // needs no guard, whose exit block llvm-spirv-15 would write before the loop it follows.
  const int32_t gemm_k = g.gemm_k;
  int32_t k0 = 0;
  do {
    #pragma unroll
    for (int32_t slice = 0; slice < kConvTileK / kRows; ++slice) {
      const int32_t row = depth + slice * kRows;
      Acc a, b;
      loader.load(k0 + row < gemm_k ? k0 + row : 0, k0 + row < gemm_k, &a, &b);
      tile_a[row * kConvTileM + lane] = a;
      tile_b[row * kConvTileN + lane] = b;
    }
    block_barrier();
    #pragma unroll
    for (int32_t kk = 0; kk < kConvTileK; ++kk) {
      Acc a[kConvThreadTile], b[kConvThreadTile];
      #pragma unroll
      for (int i = 0; i < kConvThreadTile; ++i) a[i] = tile_a[kk * kConvTileM + ty * kConvThreadTile + i];
      #pragma unroll
      for (int j = 0; j < kConvThreadTile; ++j) b[j] = tile_b[kk * kConvTileN + tx * kConvThreadTile + j];
      #pragma unroll
      for (int i = 0; i < kConvThreadTile; ++i) {
        #pragma unroll
        for (int j = 0; j < kConvThreadTile; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    block_barrier();
    k0 += kConvTileK;
  } while (k0 < gemm_k);
  #pragma unroll
  for (int i = 0; i < kConvThreadTile; ++i) {
    const int32_t m = m0 + ty * kConvThreadTile + i;
    #pragma unroll
    for (int j = 0; j < kConvThreadTile; ++j) {
      const int32_t n = n0 + tx * kConvThreadTile + j;
      if (m < g.gemm_m && n < g.gemm_n) out[conv_output_offset<D>(g, group, m, n)] = from_acc<T>(acc[i][j]);
    }
  }
}

}  // namespace hal_gpu
