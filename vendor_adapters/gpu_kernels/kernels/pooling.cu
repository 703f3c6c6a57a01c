// 2-D pooling over x [N, C, H, W], contiguous or channels-last (every tensor of a launch in the same one):
// MAX_POOL2D, AVG_POOL2D, ADAPTIVE_AVG_POOL2D, ADAPTIVE_MAX_POOL2D and their backward ops.
//
// Forward ops: a thread per output element, in the output's memory order (so writes are coalesced; in
// channels-last, adjacent threads also read adjacent channels). Windows and edge rules are ATen's: max
// pooling starts at -inf with the window's first index, takes a larger value or a NaN (so NaN wins, the
// first index on ties); average pooling's divisor is the padded window, the window inside the input
// (count_include_pad false) or divisor_override; adaptive windows are [floor(o * H / OH), ceil((o + 1) * H /
// OH)), computed in integers.
// Backward ops gather instead of scattering: a thread per input element sums the output gradients of the
// windows that hold it (for max pooling: whose index is this element). No atomics, so results are
// deterministic, and every element of dx is written.
#include <cstdint>
#include <type_traits>

#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/op_call.h"
#include "kernels/spatial_index.cuh"

namespace hal_gpu {
namespace {

using namespace spatial;  // Geometry, locate_output/locate_input, has_layout, min64/max64 (spatial_index.cuh)

constexpr int kThreads = 256;

struct Window {
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
  bool count_include_pad;
  int64_t divisor;  // 0: none
};

template <class Acc>
__device__ __forceinline__ bool is_nan(Acc v) {
  return v != v;
}
template <class Acc>
__device__ __forceinline__ Acc neg_inf() {
  return -static_cast<Acc>(INFINITY);
}

// Adaptive windows: [start_index(o, O, I), end_index(o, O, I)).
__device__ __forceinline__ int64_t start_index(int64_t a, int64_t b, int64_t c) { return (a / b) * c + ((a % b) * c) / b; }
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

// The sum of the window rows [h0, h1), columns [w0, w1) of the plane at `plane`, in row order.
template <class T, class Acc>
__device__ __forceinline__ Acc window_sum(const T* x, int64_t plane, int64_t step, int64_t W, int64_t h0, int64_t h1,
                                          int64_t w0, int64_t w1) {
  Acc sum = 0;
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t w = w0; w < w1; ++w) sum += to_acc<Acc>(x[plane + (h * W + w) * step]);
  }
  return sum;
}

// The outputs [lo, hi) along one dim whose windows (of `extent` inputs, `stride` apart, `pad` before the
// first) may hold input h.
struct Range {
  int64_t lo, hi;
};
__device__ __forceinline__ Range windows_holding(int64_t h, int64_t pad, int64_t extent, int64_t stride, int64_t out) {
  return Range{h + pad < extent ? 0 : (h + pad - extent) / stride + 1, min64((h + pad) / stride + 1, out)};
}

// ---- Forward kernels --------------------------------------------------------------------------------------
template <class T, class Acc>
__global__ void max_pool_forward(const T* x, T* y, int64_t* indices, Geometry g, Window k, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
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
}

template <class T, class Acc>
__global__ void avg_pool_forward(const T* x, T* y, Geometry g, Window k, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Located at = locate_output(i, g);
    int64_t hstart = at.pos.p * k.sH - k.pH, wstart = at.pos.q * k.sW - k.pW;
    int64_t hend = min64(hstart + k.kH, g.H + k.pH), wend = min64(wstart + k.kW, g.W + k.pW);
    const int64_t pool_size = (hend - hstart) * (wend - wstart);
    hstart = max64(hstart, 0);
    wstart = max64(wstart, 0);
    hend = min64(hend, g.H);
    wend = min64(wend, g.W);
    if (hstart >= hend || wstart >= wend) {
      y[i] = from_acc<T>(Acc(0));
      continue;
    }
    const Acc sum = window_sum<T, Acc>(x, at.other_plane, at.pos.step, g.W, hstart, hend, wstart, wend);
    const int64_t divide = k.divisor ? k.divisor : k.count_include_pad ? pool_size : (hend - hstart) * (wend - wstart);
    y[i] = from_acc<T>(sum / static_cast<Acc>(divide));
  }
}

template <class T, class Acc, bool kMax>
__global__ void adaptive_pool_forward(const T* x, T* y, int64_t* indices, Geometry g, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
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
}

// ---- Backward kernels: a thread per input element ---------------------------------------------------------
template <class T, class Acc>
__global__ void max_pool_backward(const T* dy, const int64_t* indices, T* dx, Geometry g, Window k, int64_t total) {
  const int64_t extent_h = (k.kH - 1) * k.dH + 1, extent_w = (k.kW - 1) * k.dW + 1;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
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
}

template <class T, class Acc>
__global__ void avg_pool_backward(const T* dy, T* dx, Geometry g, Window k, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Located at = locate_input(i, g);
    const Position& in = at.pos;
    const Range hs = windows_holding(in.p, k.pH, k.kH, k.sH, g.OH);
    const Range ws = windows_holding(in.q, k.pW, k.kW, k.sW, g.OW);
    Acc sum = 0;
    for (int64_t ph = hs.lo; ph < hs.hi; ++ph) {
      for (int64_t pw = ws.lo; pw < ws.hi; ++pw) {
        int64_t hstart = ph * k.sH - k.pH, wstart = pw * k.sW - k.pW;
        int64_t hend = min64(hstart + k.kH, g.H + k.pH), wend = min64(wstart + k.kW, g.W + k.pW);
        const int64_t pool_size = (hend - hstart) * (wend - wstart);
        hstart = max64(hstart, 0);
        wstart = max64(wstart, 0);
        hend = min64(hend, g.H);
        wend = min64(wend, g.W);
        if (hstart >= hend || wstart >= wend) continue;
        const int64_t divide =
            k.divisor ? k.divisor : k.count_include_pad ? pool_size : (hend - hstart) * (wend - wstart);
        sum += to_acc<Acc>(dy[at.other_plane + (ph * g.OW + pw) * in.step]) / static_cast<Acc>(divide);
      }
    }
    dx[i] = from_acc<T>(sum);
  }
}

template <class T, class Acc, bool kMax>
__global__ void adaptive_pool_backward(const T* dy, const int64_t* indices, T* dx, Geometry g, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
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
}

// ---- Host side ---------------------------------------------------------------------------------------------
enum class Kind { Max, Avg, AdaptiveAvg, AdaptiveMax };

template <class T>
hal_status_t run(const OpCall& call, Kind kind, bool backward, const Geometry& g, const Window& k) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const int64_t total = g.threads(backward);  // not 0: launch_pooling returned for empty tensors
  const unsigned grid = grid_for(total, kThreads);
  const T* in0 = reinterpret_cast<const T*>(element0(call.inputs[0]));
  T* out0 = reinterpret_cast<T*>(element0(call.outputs[0]));
  const cudaStream_t stream = call.stream;
  if (!backward) {
    int64_t* indices = (kind == Kind::Max || kind == Kind::AdaptiveMax)
                           ? reinterpret_cast<int64_t*>(element0(call.outputs[1]))
                           : nullptr;
    switch (kind) {
      case Kind::Max:
        return launch_kernel<max_pool_forward<T, Acc>>("max_pool2d", call.device, grid, kThreads, 0, stream, in0, out0,
                                                       indices, g, k, total);
      case Kind::Avg:
        return launch_kernel<avg_pool_forward<T, Acc>>("avg_pool2d", call.device, grid, kThreads, 0, stream, in0, out0,
                                                       g, k, total);
      case Kind::AdaptiveAvg:
        return launch_kernel<adaptive_pool_forward<T, Acc, false>>("adaptive_avg_pool2d", call.device, grid, kThreads,
                                                                   0, stream, in0, out0, indices, g, total);
      case Kind::AdaptiveMax:
        return launch_kernel<adaptive_pool_forward<T, Acc, true>>("adaptive_max_pool2d", call.device, grid, kThreads, 0,
                                                                  stream, in0, out0, indices, g, total);
    }
  } else {
    const int64_t* indices = (kind == Kind::Max || kind == Kind::AdaptiveMax)
                                 ? reinterpret_cast<const int64_t*>(element0(call.inputs[1]))
                                 : nullptr;
    switch (kind) {
      case Kind::Max:
        return launch_kernel<max_pool_backward<T, Acc>>("max_pool2d_backward", call.device, grid, kThreads, 0, stream,
                                                        in0, indices, out0, g, k, total);
      case Kind::Avg:
        return launch_kernel<avg_pool_backward<T, Acc>>("avg_pool2d_backward", call.device, grid, kThreads, 0, stream,
                                                        in0, out0, g, k, total);
      case Kind::AdaptiveAvg:
        return launch_kernel<adaptive_pool_backward<T, Acc, false>>("adaptive_avg_pool2d_backward", call.device, grid,
                                                                    kThreads, 0, stream, in0, indices, out0, g, total);
      case Kind::AdaptiveMax:
        return launch_kernel<adaptive_pool_backward<T, Acc, true>>("adaptive_max_pool2d_backward", call.device, grid,
                                                                   kThreads, 0, stream, in0, indices, out0, g, total);
    }
  }
  return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: unknown op");
}

}  // namespace

hal_status_t launch_pooling(const OpCall& call) {
  Kind kind;
  bool backward = false;
  switch (call.op) {
    case HAL_OP_MAX_POOL2D_BACKWARD: backward = true; [[fallthrough]];
    case HAL_OP_MAX_POOL2D: kind = Kind::Max; break;
    case HAL_OP_AVG_POOL2D_BACKWARD: backward = true; [[fallthrough]];
    case HAL_OP_AVG_POOL2D: kind = Kind::Avg; break;
    case HAL_OP_ADAPTIVE_AVG_POOL2D_BACKWARD: backward = true; [[fallthrough]];
    case HAL_OP_ADAPTIVE_AVG_POOL2D: kind = Kind::AdaptiveAvg; break;
    case HAL_OP_ADAPTIVE_MAX_POOL2D_BACKWARD: backward = true; [[fallthrough]];
    case HAL_OP_ADAPTIVE_MAX_POOL2D: kind = Kind::AdaptiveMax; break;
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: unknown op");
  }
  const bool has_indices = kind == Kind::Max || kind == Kind::AdaptiveMax;
  const int scalars = kind == Kind::Max ? 8 : kind == Kind::Avg ? 8 : 0;
  const int inputs = backward && has_indices ? 2 : 1, outputs = !backward && has_indices ? 2 : 1;
  if (call.num_inputs != inputs || call.num_outputs != outputs || (scalars && !has_scalars(call, scalars))) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: unexpected operands");
  }
  const hal_tensor_t& big = backward ? call.outputs[0] : call.inputs[0];    // [N, C, H, W]
  const hal_tensor_t& small = backward ? call.inputs[0] : call.outputs[0];  // [N, C, OH, OW]
  Geometry g;
  if (const char* wrong = read_geometry(big, small, g)) return fail(HAL_STATUS_NOT_SUPPORTED, std::string("pooling: ") + wrong);
  if (g.N * g.C * g.H * g.W == 0 || g.OH * g.OW == 0) {
    // Nothing to read; an empty output, or (backward) a gradient of no outputs, which is zero.
    return backward && g.N * g.C * g.H * g.W != 0 ? fail(HAL_STATUS_NOT_SUPPORTED, "pooling: empty output")
                                                  : HAL_STATUS_SUCCESS;
  }
  // One dense layout for every tensor: contiguous, else channels-last (where both name the same addresses,
  // as for C == 1, either is right).
  const DType t = dtype_of(big.dtype);
  const hal_tensor_t* index_tensor = has_indices ? (backward ? &call.inputs[1] : &call.outputs[1]) : nullptr;
  auto all_have = [&](bool channels_last) {
    return has_layout(big, g.N, g.C, g.H, g.W, channels_last, t) &&
           has_layout(small, g.N, g.C, g.OH, g.OW, channels_last, t) &&
           (!index_tensor || has_layout(*index_tensor, g.N, g.C, g.OH, g.OW, channels_last, DType::I64));
  };
  if (all_have(false)) g.channels_last = false;
  else if (all_have(true)) g.channels_last = true;
  else return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: tensors must share one dense layout (contiguous or channels-last)");
  Window k{};
  if (kind == Kind::Max || kind == Kind::Avg) {
    int64_t v[8];
    for (int i = 0; i < 8; ++i) v[i] = scalar_as_int(op_scalar(call, i));
    k.kH = v[0];
    k.kW = v[1];
    k.sH = v[2];
    k.sW = v[3];
    k.pH = v[4];
    k.pW = v[5];
    if (kind == Kind::Max) {
      k.dH = v[6];
      k.dW = v[7];
    } else {
      k.dH = k.dW = 1;
      k.count_include_pad = v[6] != 0;
      k.divisor = v[7];
    }
    if (k.kH <= 0 || k.kW <= 0 || k.sH <= 0 || k.sW <= 0 || k.pH < 0 || k.pW < 0 || k.dH <= 0 || k.dW <= 0 ||
        k.divisor < 0) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: invalid window");
    }
  }
  switch (t) {
    case DType::F32: return run<float>(call, kind, backward, g, k);
    case DType::F16: return run<__half>(call, kind, backward, g, k);
    case DType::BF16: return run<__nv_bfloat16>(call, kind, backward, g, k);
    case DType::F64: return run<double>(call, kind, backward, g, k);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: unsupported dtype");
  }
}

}  // namespace hal_gpu
