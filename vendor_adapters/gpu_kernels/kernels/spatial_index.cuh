// Element positions in [N, C, P, Q] tensors laid out contiguous (NCHW) or channels-last (NHWC), shared by
// the pooling and upsampling kernels (pooling.cu, upsample.cu): a thread per element of one tensor, in its
// memory order, finds its plane and (p, q), and the same plane in a tensor of another plane size.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

#include "kernels/gpu_runtime.h"
#if !defined(__OPENCL_CPP_VERSION__)
#include "kernels/tensor_operands.h"
#endif

namespace hal_gpu {
namespace spatial {

// Element i of a [N, C, P, Q] tensor in memory order: its plane's element-0 offset, its (p, q), and the
// step between adjacent (p, q) of the plane.
struct Position {
  int64_t plane, step, p, q;
};
// Where element i of the tensor of plane size P x Q lies, and its plane's offset in the other tensor (plane size
// P2 x Q2: input <-> output).
struct Located {
  Position pos;
  int64_t other_plane;
};
// One decomposition of i serves both tensors. I is the type the divisions run in: uint32_t (several times faster)
// when every index of the launch fits, else int64_t. Remainders come from the quotients (llvm-spirv-15 cannot
// translate the `freeze` that LLVM gives a div/rem pair of the same operands).
template <class I>
__device__ __forceinline__ Located locate_in(int64_t index, int64_t C64, int64_t P64, int64_t Q64, int64_t P2,
                                             int64_t Q2, bool channels_last) {
  const I i = static_cast<I>(index), C = static_cast<I>(C64), P = static_cast<I>(P64), Q = static_cast<I>(Q64);
  Located at;
  Position& pos = at.pos;
  if (channels_last) {
    const I t = i / C;  // n * P * Q + p * Q + q
    const I c = i - t * C;
    const I u = t / Q;  // n * P + p
    pos.q = t - u * Q;
    const I n = u / P;
    pos.p = u - n * P;
    pos.plane = static_cast<int64_t>(n) * P64 * Q64 * C64 + c;
    pos.step = C64;
    at.other_plane = static_cast<int64_t>(n) * P2 * Q2 * C64 + c;
  } else {
    const I t = i / Q;  // (n * C + c) * P + p
    pos.q = i - t * Q;
    const I u = t / P;  // n * C + c
    pos.p = t - u * P;
    pos.plane = static_cast<int64_t>(u) * P64 * Q64;
    pos.step = 1;
    at.other_plane = static_cast<int64_t>(u) * P2 * Q2;
  }
  return at;
}
__device__ __forceinline__ Located locate(int64_t i, int64_t C, int64_t P, int64_t Q, int64_t P2, int64_t Q2,
                                          bool channels_last, bool small) {
  if (small) return locate_in<uint32_t>(i, C, P, Q, P2, Q2, channels_last);
  return locate_in<int64_t>(i, C, P, Q, P2, Q2, channels_last);
}

// The sizes of a launch over x [N, C, H, W] and y [N, C, OH, OW] (pooling's windows, upsampling's output),
// and where their planes live: in channels-last, element (h, w) of plane (n, c) is at
// n * H * W * C + c + (h * W + w) * C; otherwise at (n * C + c) * H * W + h * W + w.
struct Geometry {
  int64_t N, C, H, W, OH, OW;
  // Fixed-width fields only (a by-value kernel argument; OpenCL takes no bool in one), laid out alike by x86-64,
  // NVIDIA, AMD and spir64.
  uint8_t channels_last;  // a bool
  uint8_t small;          // a bool: every element index of x and y fits in 31 bits
  // The elements a launch gives a thread each: y's forward, x's backward (the gradient kernels gather).
  int64_t threads(bool backward) const { return backward ? N * C * H * W : N * C * OH * OW; }
};

// Element i of y in memory order, and its plane in x (the forward kernels: a thread per output element).
__device__ __forceinline__ Located locate_output(int64_t i, const Geometry& g) {
  return locate(i, g.C, g.OH, g.OW, g.H, g.W, g.channels_last, g.small);
}
// Element i of x in memory order, and its plane in y (the backward kernels gather: a thread per input element).
__device__ __forceinline__ Located locate_input(int64_t i, const Geometry& g) {
  return locate(i, g.C, g.H, g.W, g.OH, g.OW, g.channels_last, g.small);
}

__device__ __forceinline__ int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

#if !defined(__OPENCL_CPP_VERSION__)  // host code: the checks of a launch's tensors

// `t` is [N, C, P, Q] of dtype `d`, contiguous or channels-last as `channels_last` says (size-1 dims aside).
inline bool has_layout(const hal_tensor_t& t, int64_t N, int64_t C, int64_t P, int64_t Q, bool channels_last, DType d) {
  if (t.data == nullptr || t.ndim != 4 || dtype_of(t.dtype) != d) return false;
  const int64_t shape[4] = {N, C, P, Q};
  const int64_t first[4] = {C * P * Q, P * Q, Q, 1}, last[4] = {P * Q * C, 1, Q * C, C};
  for (int k = 0; k < 4; ++k) {
    if (t.shape[k] != shape[k]) return false;
    if (shape[k] != 1 && t.strides[k] != (channels_last ? last[k] : first[k])) return false;
  }
  return true;
}

// The sizes from big [N, C, H, W] and small [N, C, OH, OW] (layout aside): nullptr, or what is wrong.
inline const char* read_geometry(const hal_tensor_t& big, const hal_tensor_t& small, Geometry& g) {
  if (big.ndim != 4 || small.ndim != 4) return "tensors must be 4-D";
  g.N = big.shape[0];
  g.C = big.shape[1];
  g.H = big.shape[2];
  g.W = big.shape[3];
  g.OH = small.shape[2];
  g.OW = small.shape[3];
  if (small.shape[0] != g.N || small.shape[1] != g.C) return "shapes differ";
  g.small = g.N * g.C * g.H * g.W < (int64_t{1} << 31) && g.N * g.C * g.OH * g.OW < (int64_t{1} << 31);
  return nullptr;
}

#endif
}  // namespace spatial
}  // namespace hal_gpu
