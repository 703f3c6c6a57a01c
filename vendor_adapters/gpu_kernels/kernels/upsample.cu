// UPSAMPLE_NEAREST2D and UPSAMPLE_BILINEAR2D, forward and backward, over [N, C, H, W] tensors, contiguous or
// channels-last (every tensor of a launch in the same one).
//
// Source indices follow ATen's CPU kernels exactly (UpSample.h), float arithmetic included, so that nearest
// picks the same pixels:
//   nearest:        src = min(floor(o * scale), H - 1), with ATen's shortcuts for OH == H and OH == 2 * H
//   nearest-exact:  src = min(floor((o + 0.5) * scale), H - 1)
//   bilinear:       real = align_corners ? scale * o : max(scale * (o + 0.5) - 0.5, 0); i0 = min(floor(real),
//                   H - 1), i1 = i0 + (i0 < H - 1), lambda = clamp(real - i0, 0, 1); a plain copy when OH == H
// Forward: a thread per output element, in the output's memory order. Backward gathers: a thread per input
// element walks the outputs that may read it (a range found by inverting the mapping, with a margin) and
// adds the gradients of those that do, weighted; no atomics, so results are deterministic and every
// element of dx is written.
#include <cmath>
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

// ---- Nearest --------------------------------------------------------------------------------------------------
__device__ __forceinline__ int64_t nearest_source(int64_t o, int64_t in, int64_t out, float scale, bool exact) {
  int64_t s;
  if (exact) {
    // ATen: floorf((o + 0.5) * scale), the product in double, rounded to float by floorf's parameter.
    s = static_cast<int64_t>(floorf(static_cast<float>((static_cast<double>(o) + 0.5) * static_cast<double>(scale))));
  } else {
    if (out == in) return o;
    if (out == 2 * in) return o >> 1;
    s = static_cast<int64_t>(floorf(static_cast<float>(o) * scale));
  }
  return s < in - 1 ? s : in - 1;
}

// Outputs [lo, hi) that may read input h: the mapping inverted, two outputs of margin either side (then
// each is checked against nearest_source itself).
__device__ __forceinline__ void nearest_outputs(int64_t h, int64_t in, int64_t out, float scale, bool exact,
                                                int64_t& lo, int64_t& hi) {
  if (!exact && out == in) {
    lo = h;
    hi = h + 1;
    return;
  }
  if (!exact && out == 2 * in) {
    lo = 2 * h;
    hi = 2 * h + 2;
    return;
  }
  const double shift = exact ? 0.5 : 0.0;
  lo = max64(static_cast<int64_t>(floor(static_cast<double>(h) / scale - shift)) - 2, 0);
  hi = h == in - 1 ? out : min64(static_cast<int64_t>(ceil(static_cast<double>(h + 1) / scale - shift)) + 2, out);
}

template <class T>
__global__ void nearest_forward(const T* x, T* y, Geometry g, float scale_h, float scale_w, bool exact, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Located at = locate_output(i, g);
    const int64_t h = nearest_source(at.pos.p, g.H, g.OH, scale_h, exact);
    const int64_t w = nearest_source(at.pos.q, g.W, g.OW, scale_w, exact);
    y[i] = x[at.other_plane + (h * g.W + w) * at.pos.step];
  }
}

template <class T, class Acc>
__global__ void nearest_backward(const T* dy, T* dx, Geometry g, float scale_h, float scale_w, bool exact,
                                 int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Located at = locate_input(i, g);
    const int64_t h = at.pos.p, w = at.pos.q;
    int64_t oh0, oh1, ow0, ow1;
    nearest_outputs(h, g.H, g.OH, scale_h, exact, oh0, oh1);
    nearest_outputs(w, g.W, g.OW, scale_w, exact, ow0, ow1);
    Acc sum = 0;
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      if (nearest_source(oh, g.H, g.OH, scale_h, exact) != h) continue;
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        if (nearest_source(ow, g.W, g.OW, scale_w, exact) != w) continue;
        sum += to_acc<Acc>(dy[at.other_plane + (oh * g.OW + ow) * at.pos.step]);
      }
    }
    dx[i] = from_acc<T>(sum);
  }
}

// ---- Bilinear ---------------------------------------------------------------------------------------------------
template <class Acc>
struct Lerp {
  int64_t i0, i1;
  Acc l0, l1;
};

__device__ __forceinline__ float floor_acc(float v) { return floorf(v); }
__device__ __forceinline__ double floor_acc(double v) { return floor(v); }

template <class Acc>
__device__ __forceinline__ Lerp<Acc> bilinear_source(int64_t o, int64_t in, int64_t out, Acc scale, bool align_corners) {
  if (out == in) return Lerp<Acc>{o, o, Acc(1), Acc(0)};
  Acc real = align_corners ? scale * static_cast<Acc>(o) : scale * (static_cast<Acc>(o) + Acc(0.5)) - Acc(0.5);
  if (!align_corners && real < Acc(0)) real = Acc(0);
  const int64_t i0 = min64(static_cast<int64_t>(floor_acc(real)), in - 1);
  Acc l1 = real - static_cast<Acc>(i0);
  l1 = l1 < Acc(0) ? Acc(0) : (l1 > Acc(1) ? Acc(1) : l1);
  return Lerp<Acc>{i0, i0 + (i0 < in - 1 ? 1 : 0), Acc(1) - l1, l1};
}

// The weight of input h in output o's interpolation.
template <class Acc>
__device__ __forceinline__ Acc bilinear_weight(int64_t o, int64_t h, int64_t in, int64_t out, Acc scale,
                                               bool align_corners) {
  const Lerp<Acc> l = bilinear_source<Acc>(o, in, out, scale, align_corners);
  return (l.i0 == h ? l.l0 : Acc(0)) + (l.i1 == h ? l.l1 : Acc(0));
}

// Outputs [lo, hi) whose i0 may be h - 1 or h, with a margin of two outputs either side.
template <class Acc>
__device__ __forceinline__ void bilinear_outputs(int64_t h, int64_t in, int64_t out, Acc scale, bool align_corners,
                                                 int64_t& lo, int64_t& hi) {
  if (out == in) {
    lo = h;
    hi = h + 1;
    return;
  }
  if (!(scale > Acc(0))) {  // every output reads input 0 (align_corners with one output)
    lo = 0;
    hi = out;
    return;
  }
  const double s = static_cast<double>(scale);
  const double shift = align_corners ? 0.0 : 0.5;
  lo = max64(static_cast<int64_t>(floor((static_cast<double>(h) - 1.0 + shift) / s - shift)) - 2, 0);
  hi = h >= in - 2 ? out : min64(static_cast<int64_t>(ceil((static_cast<double>(h) + 1.0 + shift) / s - shift)) + 2, out);
}

template <class T, class Acc>
__global__ void bilinear_forward(const T* x, T* y, Geometry g, Acc scale_h, Acc scale_w, bool align_corners,
                                 int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Located at = locate_output(i, g);
    const Lerp<Acc> lh = bilinear_source<Acc>(at.pos.p, g.H, g.OH, scale_h, align_corners);
    const Lerp<Acc> lw = bilinear_source<Acc>(at.pos.q, g.W, g.OW, scale_w, align_corners);
    const T* plane = x + at.other_plane;
    const int64_t step = at.pos.step;
    auto at_hw = [&](int64_t h, int64_t w) { return to_acc<Acc>(plane[(h * g.W + w) * step]); };
    const Acc v = lh.l0 * (lw.l0 * at_hw(lh.i0, lw.i0) + lw.l1 * at_hw(lh.i0, lw.i1)) +
                  lh.l1 * (lw.l0 * at_hw(lh.i1, lw.i0) + lw.l1 * at_hw(lh.i1, lw.i1));
    y[i] = from_acc<T>(v);
  }
}

template <class T, class Acc>
__global__ void bilinear_backward(const T* dy, T* dx, Geometry g, Acc scale_h, Acc scale_w, bool align_corners,
                                  int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Located at = locate_input(i, g);
    const int64_t h = at.pos.p, w = at.pos.q;
    int64_t oh0, oh1, ow0, ow1;
    bilinear_outputs<Acc>(h, g.H, g.OH, scale_h, align_corners, oh0, oh1);
    bilinear_outputs<Acc>(w, g.W, g.OW, scale_w, align_corners, ow0, ow1);
    Acc sum = 0;
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      const Acc wh = bilinear_weight<Acc>(oh, h, g.H, g.OH, scale_h, align_corners);
      if (wh == Acc(0)) continue;
      Acc row = 0;
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        const Acc ww = bilinear_weight<Acc>(ow, w, g.W, g.OW, scale_w, align_corners);
        if (ww == Acc(0)) continue;
        row += ww * to_acc<Acc>(dy[at.other_plane + (oh * g.OW + ow) * at.pos.step]);
      }
      sum += wh * row;
    }
    dx[i] = from_acc<T>(sum);
  }
}

// ---- Host side --------------------------------------------------------------------------------------------------
template <class T>
hal_status_t run(const OpCall& call, bool bilinear, bool backward, const Geometry& g) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const int64_t total = g.threads(backward);  // not 0: launch_upsample returned for empty tensors
  const unsigned grid = grid_for(total, kThreads);
  const T* in0 = reinterpret_cast<const T*>(element0(call.inputs[0]));
  T* out0 = reinterpret_cast<T*>(element0(call.outputs[0]));
  const double sh = scalar_as_double(op_scalar(call, 0)), sw = scalar_as_double(op_scalar(call, 1));
  const bool flag = scalar_as_int(op_scalar(call, 2)) != 0;  // nearest: exact; bilinear: align_corners
  if (!bilinear) {
    const float fh = static_cast<float>(sh), fw = static_cast<float>(sw);
    if (!(fh > 0.f) || !(fw > 0.f) || !std::isfinite(fh) || !std::isfinite(fw)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "upsample_nearest2d: scales must be positive");
    }
    return backward ? launch_kernel<nearest_backward<T, Acc>>("upsample_nearest2d_backward", call.device, grid,
                                                              kThreads, 0, call.stream, in0, out0, g, fh, fw, flag,
                                                              total)
                    : launch_kernel<nearest_forward<T>>("upsample_nearest2d", call.device, grid, kThreads, 0,
                                                        call.stream, in0, out0, g, fh, fw, flag, total);
  }
  const Acc ah = static_cast<Acc>(sh), aw = static_cast<Acc>(sw);
  if (!std::isfinite(static_cast<double>(ah)) || !std::isfinite(static_cast<double>(aw)) || ah < Acc(0) ||
      aw < Acc(0)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "upsample_bilinear2d: scales must be finite and not negative");
  }
  return backward ? launch_kernel<bilinear_backward<T, Acc>>("upsample_bilinear2d_backward", call.device, grid,
                                                             kThreads, 0, call.stream, in0, out0, g, ah, aw, flag,
                                                             total)
                  : launch_kernel<bilinear_forward<T, Acc>>("upsample_bilinear2d", call.device, grid, kThreads, 0,
                                                            call.stream, in0, out0, g, ah, aw, flag, total);
}

}  // namespace

hal_status_t launch_upsample(const OpCall& call) {
  bool bilinear = false, backward = false;
  switch (call.op) {
    case HAL_OP_UPSAMPLE_NEAREST2D: break;
    case HAL_OP_UPSAMPLE_NEAREST2D_BACKWARD: backward = true; break;
    case HAL_OP_UPSAMPLE_BILINEAR2D: bilinear = true; break;
    case HAL_OP_UPSAMPLE_BILINEAR2D_BACKWARD: bilinear = backward = true; break;
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "upsample: unknown op");
  }
  if (!has_operands(call, 1, 1, 3)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "upsample: unexpected operands");
  }
  const hal_tensor_t& big = backward ? call.outputs[0] : call.inputs[0];    // [N, C, H, W]
  const hal_tensor_t& small = backward ? call.inputs[0] : call.outputs[0];  // [N, C, OH, OW] (the output size)
  Geometry g;
  if (const char* wrong = read_geometry(big, small, g)) return fail(HAL_STATUS_NOT_SUPPORTED, std::string("upsample: ") + wrong);
  if (g.N * g.C == 0) return HAL_STATUS_SUCCESS;
  if (g.H <= 0 || g.W <= 0 || g.OH <= 0 || g.OW <= 0) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "upsample: empty planes");
  }
  const DType t = dtype_of(big.dtype);
  auto all_have = [&](bool channels_last) {
    return has_layout(big, g.N, g.C, g.H, g.W, channels_last, t) &&
           has_layout(small, g.N, g.C, g.OH, g.OW, channels_last, t);
  };
  if (all_have(false)) g.channels_last = false;
  else if (all_have(true)) g.channels_last = true;
  else return fail(HAL_STATUS_NOT_SUPPORTED, "upsample: tensors must share one dense layout (contiguous or channels-last)");
  switch (t) {
    case DType::F32: return run<float>(call, bilinear, backward, g);
    case DType::F16: return run<__half>(call, bilinear, backward, g);
    case DType::BF16: return run<__nv_bfloat16>(call, bilinear, backward, g);
    case DType::F64: return run<double>(call, bilinear, backward, g);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "upsample: unsupported dtype");
  }
}

}  // namespace hal_gpu
