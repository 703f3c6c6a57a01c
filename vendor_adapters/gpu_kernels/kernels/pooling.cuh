// The pooling family's kernel bodies, one source for nvcc, hipcc and clang's SPIR-V (pooling.cu and
// spirv_kernels/kernels/pooling.cl declare the entry points around them): MAX_POOL2D, AVG_POOL2D,
// ADAPTIVE_AVG_POOL2D, ADAPTIVE_MAX_POOL2D and their backward ops over x [N, C, H, W], contiguous or channels-last
// (every tensor of a launch in the same one), each body computing one element.
//
// Forward ops: an element per output element, in the output's memory order (so writes are coalesced; in
// channels-last, adjacent threads also read adjacent channels). Windows and edge rules are ATen's: max pooling
// starts at -inf with the window's first index, takes a larger value or a NaN (so NaN wins, the first index on
// ties); average pooling's divisor is the padded window, the window inside the input (count_include_pad false) or
// divisor_override; adaptive windows are [floor(o * H / OH), ceil((o + 1) * H / OH)), computed in integers.
// Backward ops gather instead of scattering: an element per input element sums the output gradients of the
// windows that hold it (for max pooling: whose index is this element). No atomics, so results are deterministic,
// and every element of dx is written.
//
// T is the storage type, Acc the accumulation type; the includer provides to_acc / from_acc (accumulate.cuh,
// which family_support.cuh includes and the SPIR-V kernels include themselves). Remainders come from quotients
// (llvm-spirv-15 cannot translate the `freeze` that LLVM gives a div/rem pair of the same operands).
#pragma once

#include "kernels/gpu_runtime.h"
#include "kernels/pooling_geometry.h"
#include "kernels/spatial_index.cuh"

namespace hal_gpu {
namespace pooling {

using namespace spatial;  // Geometry, locate_output/locate_input, min64/max64 (spatial_index.cuh)

template <class Acc>
__device__ __forceinline__ bool is_nan(Acc v) {
  return v != v;
}
template <class Acc>
__device__ __forceinline__ Acc neg_inf() {
  return -static_cast<Acc>(INFINITY);
}

// Adaptive windows: [start_index(o, O, I), end_index(o, O, I)).
__device__ __forceinline__ int64_t start_index(int64_t a, int64_t b, int64_t c) {
  const int64_t q = a / b;
  return q * c + ((a - q * b) * c) / b;
}
__device__ __forceinline__ int64_t end_index(int64_t a, int64_t b, int64_t c) { return 1 + ((a + 1) * c - 1) / b; }

// The largest value of the window rows [h0, h1) step dh, columns [w0, w1) step dw, of the plane at `plane`
// (adjacent (h, w) `step` apart), and its index h * W + w: ATen's rule, starting from -inf at the window's
// first index, a larger value or a NaN wins (NaN propagates; ties keep the first index).
template <class Acc>
struct Max {
  Acc value;
  int64_t index;
};
template <class T, class Acc>
__device__ __forceinline__ Max<Acc> window_max(const T* x, int64_t plane, int64_t step, int64_t W, int64_t h0,
                                               int64_t h1, int64_t dh, int64_t w0, int64_t w1, int64_t dw) {
  Acc best = neg_inf<Acc>();
  int64_t best_index = h0 * W + w0;
  for (int64_t h = h0; h < h1; h += dh) {
    for (int64_t w = w0; w < w1; w += dw) {
      const Acc v = to_acc<Acc>(x[plane + (h * W + w) * step]);
      if (v > best || is_nan(v)) {
        best = v;
        best_index = h * W + w;
      }
    }
  }
  return Max<Acc>{best, best_index};
}

// The sum of the window rows [h0, h1), columns [w0, w1) of the plane at `plane`, in row order; the window is not
// empty. Loops that always run, written as such: as guarded loops, llvm-spirv-15 writes the outer one's latch before
// the inner loop wherever the compiler knows the window is not empty (spirv-val rejects that).
template <class T, class Acc>
__device__ __forceinline__ Acc window_sum(const T* x, int64_t plane, int64_t step, int64_t W, int64_t h0, int64_t h1,
                                          int64_t w0, int64_t w1) {
  Acc sum = 0;
  int64_t h = h0;
  do {
    int64_t w = w0;
    do {
      sum += to_acc<Acc>(x[plane + (h * W + w) * step]);
    } while (++w < w1);
  } while (++h < h1);
  return sum;
}

// Average pooling's window of output (ph, pw): rows [h0, h1) and columns [w0, w1) of the input, empty for a window
// wholly in the padding, and the size of the padded window.
struct AvgWindow {
  int64_t h0, h1, w0, w1, padded_size;
  __device__ __forceinline__ bool empty() const { return h0 >= h1 || w0 >= w1; }
  // The divisor: divisor_override, else the padded window's size with count_include_pad, else the size inside.
  __device__ __forceinline__ int64_t divisor(const Window& k) const {
    return k.divisor ? k.divisor : k.count_include_pad ? padded_size : (h1 - h0) * (w1 - w0);
  }
};
__device__ __forceinline__ AvgWindow avg_window(int64_t ph, int64_t pw, const Geometry& g, const Window& k) {
  const int64_t hstart = ph * k.sH - k.pH, wstart = pw * k.sW - k.pW;
  const int64_t hend = min64(hstart + k.kH, g.H + k.pH), wend = min64(wstart + k.kW, g.W + k.pW);
  return AvgWindow{max64(hstart, 0), min64(hend, g.H), max64(wstart, 0), min64(wend, g.W),
                   (hend - hstart) * (wend - wstart)};
}

// The outputs [lo, hi) along one dim whose windows (of `extent` inputs, `stride` apart, `pad` before the
// first) may hold input h.
struct Range {
  int64_t lo, hi;
};
__device__ __forceinline__ Range windows_holding(int64_t h, int64_t pad, int64_t extent, int64_t stride, int64_t out) {
  return Range{h + pad < extent ? 0 : (h + pad - extent) / stride + 1, min64((h + pad) / stride + 1, out)};
}

// ---- Forward: element i of y (and of indices) ----------------------------------------------------------------
template <class T, class Acc>
__device__ __forceinline__ void max_pool_forward_at(int64_t i, const T* x, T* y, int64_t* indices, const Geometry& g,
                                                    const Window& k) {
  const Located at = locate_output(i, g);
  const Position& o = at.pos;
  int64_t hstart = o.p * k.sH - k.pH, wstart = o.q * k.sW - k.pW;
  const int64_t hend = min64(hstart + (k.kH - 1) * k.dH + 1, g.H);
  const int64_t wend = min64(wstart + (k.kW - 1) * k.dW + 1, g.W);
  while (hstart < 0) hstart += k.dH;
  while (wstart < 0) wstart += k.dW;
  const Max<Acc> best = window_max<T, Acc>(x, at.other_plane, o.step, g.W, hstart, hend, k.dH, wstart, wend, k.dW);
  y[i] = from_acc<T>(best.value);
  indices[i] = best.index;
}

template <class T, class Acc>
__device__ __forceinline__ void avg_pool_forward_at(int64_t i, const T* x, T* y, const Geometry& g, const Window& k) {
  const Located at = locate_output(i, g);
  const AvgWindow a = avg_window(at.pos.p, at.pos.q, g, k);
  if (a.empty()) {  // wholly in the padding
    y[i] = from_acc<T>(Acc(0));
    return;
  }
  const Acc sum = window_sum<T, Acc>(x, at.other_plane, at.pos.step, g.W, a.h0, a.h1, a.w0, a.w1);
  y[i] = from_acc<T>(sum / static_cast<Acc>(a.divisor(k)));
}

template <class T, class Acc, bool kMax>
__device__ __forceinline__ void adaptive_pool_forward_at(int64_t i, const T* x, T* y, int64_t* indices,
                                                         const Geometry& g) {
  const Located at = locate_output(i, g);
  const Position& o = at.pos;
  const int64_t h0 = start_index(o.p, g.OH, g.H), h1 = end_index(o.p, g.OH, g.H);
  const int64_t w0 = start_index(o.q, g.OW, g.W), w1 = end_index(o.q, g.OW, g.W);
  if (kMax) {
    const Max<Acc> best = window_max<T, Acc>(x, at.other_plane, o.step, g.W, h0, h1, 1, w0, w1, 1);
    y[i] = from_acc<T>(best.value);
    indices[i] = best.index;
  } else {
    const Acc sum = window_sum<T, Acc>(x, at.other_plane, o.step, g.W, h0, h1, w0, w1);
    y[i] = from_acc<T>(sum / static_cast<Acc>((h1 - h0) * (w1 - w0)));
  }
}

// ---- Backward: element i of dx -----------------------------------------------------------------------------------
template <class T, class Acc>
__device__ __forceinline__ void max_pool_backward_at(int64_t i, const T* dy, const int64_t* indices, T* dx,
                                                     const Geometry& g, const Window& k) {
  const int64_t extent_h = (k.kH - 1) * k.dH + 1, extent_w = (k.kW - 1) * k.dW + 1;
  const Located at = locate_input(i, g);
  const Position& in = at.pos;
  const Range hs = windows_holding(in.p, k.pH, extent_h, k.sH, g.OH);
  const Range ws = windows_holding(in.q, k.pW, extent_w, k.sW, g.OW);
  const int64_t target = in.p * g.W + in.q;
  Acc sum = 0;
  for (int64_t ph = hs.lo; ph < hs.hi; ++ph) {
    for (int64_t pw = ws.lo; pw < ws.hi; ++pw) {
      const int64_t offset = at.other_plane + (ph * g.OW + pw) * in.step;
      if (indices[offset] == target) sum += to_acc<Acc>(dy[offset]);
    }
  }
  dx[i] = from_acc<T>(sum);
}

template <class T, class Acc>
__device__ __forceinline__ void avg_pool_backward_at(int64_t i, const T* dy, T* dx, const Geometry& g,
                                                     const Window& k) {
  const Located at = locate_input(i, g);
  const Position& in = at.pos;
  const Range hs = windows_holding(in.p, k.pH, k.kH, k.sH, g.OH);
  const Range ws = windows_holding(in.q, k.pW, k.kW, k.sW, g.OW);
  Acc sum = 0;
  for (int64_t ph = hs.lo; ph < hs.hi; ++ph) {
    for (int64_t pw = ws.lo; pw < ws.hi; ++pw) {
      const AvgWindow a = avg_window(ph, pw, g, k);
      if (a.empty()) continue;
      sum += to_acc<Acc>(dy[at.other_plane + (ph * g.OW + pw) * in.step]) / static_cast<Acc>(a.divisor(k));
    }
  }
  dx[i] = from_acc<T>(sum);
}

template <class T, class Acc, bool kMax>
__device__ __forceinline__ void adaptive_pool_backward_at(int64_t i, const T* dy, const int64_t* indices, T* dx,
                                                          const Geometry& g) {
  const Located at = locate_input(i, g);
  const Position& in = at.pos;
  const int64_t plane = at.other_plane;
  const int64_t h = in.p, w = in.q;
  // The outputs whose windows may hold (h, w), each checked.
  const int64_t oh0 = start_index(h, g.H, g.OH), oh1 = end_index(h, g.H, g.OH);
  const int64_t ow0 = start_index(w, g.W, g.OW), ow1 = end_index(w, g.W, g.OW);
  const int64_t target = h * g.W + w;
  Acc sum = 0;
  for (int64_t oh = oh0; oh < oh1 && oh < g.OH; ++oh) {
    const int64_t h0 = start_index(oh, g.OH, g.H), h1 = end_index(oh, g.OH, g.H);
    if (h < h0 || h >= h1) continue;
    for (int64_t ow = ow0; ow < ow1 && ow < g.OW; ++ow) {
      const int64_t w0 = start_index(ow, g.OW, g.W), w1 = end_index(ow, g.OW, g.W);
      if (w < w0 || w >= w1) continue;
      const int64_t offset = plane + (oh * g.OW + ow) * in.step;
      if (kMax) {
        if (indices[offset] == target) sum += to_acc<Acc>(dy[offset]);
      } else {
        sum += to_acc<Acc>(dy[offset]) / static_cast<Acc>((h1 - h0) * (w1 - w0));
      }
    }
  }
  dx[i] = from_acc<T>(sum);
}

}  // namespace pooling
}  // namespace hal_gpu
