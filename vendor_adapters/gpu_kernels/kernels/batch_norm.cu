// BATCH_NORM and BATCH_NORM_BACKWARD over x [N, C, S] in either dense layout of adapter.h: channels-first
// (NCHW: element (n, c, s) at (n * C + c) * S + s) or channels-last (NHWC: at (n * S + s) * C + c).
//
// Per-channel sums over the R = N * S elements of a channel run in two stages, so that a few channels of
// many elements still fill the GPU and results do not depend on scheduling (no floating-point atomics):
//  1. a grid of (channel tile, chunk of R) blocks writes one partial per (chunk, channel) to the stream's
//     scratch buffer. Channels-first: a block of 256 threads per channel, adjacent threads reading adjacent
//     elements of the channel's planes. Channels-last: a block of 32 channels x 8 row lanes, a warp reading
//     32 adjacent channels of one row.
//  2. a thread per channel combines its chunks in order and derives what the elementwise pass needs.
// The forward's partials are Welford triples (mean, sum of squared deviations, count), combined with Chan's
// formula: one pass over x, with the accuracy of a two-pass variance. Then one elementwise pass writes y.
// Evaluation mode and the backward's dx need no statistics of x beyond those, so stage 1 is skipped where
// it has nothing to compute.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/norm_rows.cuh"
#include "kernels/op_call.h"
#include "kernels/param_vector.cuh"

namespace hal_gpu {
namespace {

constexpr int kFlatThreads = 256;  // channels-first stage 1, and the elementwise passes
// Channels-last stage 1: blocks of kColumnTile channels x kRowLanes row lanes (norm_rows.cuh).


// ---- Welford triples ------------------------------------------------------------------------------
template <class Acc>
struct Welford {
  Acc mean, m2, count;
};
template <class Acc>
__device__ __forceinline__ void welford_push(Welford<Acc>& w, Acc v) {
  w.count += Acc(1);
  const Acc d = v - w.mean;
  w.mean += d / w.count;
  w.m2 += d * (v - w.mean);
}
template <class Acc>
__device__ __forceinline__ Welford<Acc> welford_merge(const Welford<Acc>& a, const Welford<Acc>& b) {
  if (b.count == Acc(0)) return a;
  if (a.count == Acc(0)) return b;
  const Acc n = a.count + b.count;
  const Acc d = b.mean - a.mean;
  const Acc fb = b.count / n;
  return Welford<Acc>{a.mean + d * fb, a.m2 + b.m2 + d * d * a.count * fb, n};
}
// Over a block of blockDim.x threads (1-D); thread 0 gets the result. Fixed order: deterministic.
template <class Acc>
__device__ Welford<Acc> block_welford(Welford<Acc> w, Welford<Acc>* shared) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    Welford<Acc> o{__shfl_xor_sync(0xffffffffu, w.mean, m), __shfl_xor_sync(0xffffffffu, w.m2, m),
                   __shfl_xor_sync(0xffffffffu, w.count, m)};
    w = welford_merge(w, o);
  }
  if (lane == 0) shared[warp] = w;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < warps; ++k) w = welford_merge(w, shared[k]);
  }
  return w;
}

// Sums of the backward (sum of dy, sum of dy * (x - mean)).
template <class Acc>
struct Sums2 {
  Acc dy, dy_xmu;
};

// ---- Stage 1 of the forward: Welford partials per (chunk, channel) ----------------------------------
template <class T, class Acc>
__global__ void bn_stats_channels_first(const T* x, Welford<Acc>* partial, int64_t C, int64_t S, int64_t R,
                                        int64_t per_chunk) {
  __shared__ Welford<Acc> shared[32];
  const int64_t c = blockIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * per_chunk;
  const int64_t end = begin + per_chunk < R ? begin + per_chunk : R;
  Welford<Acc> w{Acc(0), Acc(0), Acc(0)};
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const int64_t n = j / S, s = j - n * S;
    welford_push(w, to_acc<Acc>(x[(n * C + c) * S + s]));
  }
  w = block_welford(w, shared);
  if (threadIdx.x == 0) partial[static_cast<int64_t>(blockIdx.y) * C + c] = w;
}

template <class T, class Acc>
__global__ void bn_stats_channels_last(const T* x, Welford<Acc>* partial, int64_t C, int64_t R, int64_t per_chunk) {
  __shared__ Welford<Acc> tile[kRowLanes][kColumnTile + 1];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * per_chunk;
  const int64_t end = begin + per_chunk < R ? begin + per_chunk : R;
  Welford<Acc> w{Acc(0), Acc(0), Acc(0)};
  if (c < C) {
    for (int64_t r = begin + threadIdx.y; r < end; r += kRowLanes) welford_push(w, to_acc<Acc>(x[r * C + c]));
  }
  tile[threadIdx.y][threadIdx.x] = w;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    for (int k = 1; k < kRowLanes; ++k) w = welford_merge(w, tile[k][threadIdx.x]);
    partial[static_cast<int64_t>(blockIdx.y) * C + c] = w;
  }
}

// ---- Stage 1 of the backward: (sum dy, sum dy * (x - mean)) partials ------------------------------
template <class T, class Acc>
__global__ void bn_grad_sums_channels_first(const T* dy, const T* x, const Acc* mean, Sums2<Acc>* partial, int64_t C,
                                            int64_t S, int64_t R, int64_t per_chunk) {
  __shared__ Acc shared[32];
  const int64_t c = blockIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * per_chunk;
  const int64_t end = begin + per_chunk < R ? begin + per_chunk : R;
  const Acc mu = mean[c];
  Acc s_dy = 0, s_dyx = 0;
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const int64_t n = j / S, s = j - n * S;
    const int64_t offset = (n * C + c) * S + s;
    const Acc g = to_acc<Acc>(dy[offset]);
    s_dy += g;
    s_dyx += g * (to_acc<Acc>(x[offset]) - mu);
  }
  s_dy = block_reduce<Acc, false>(s_dy, shared);
  s_dyx = block_reduce<Acc, false>(s_dyx, shared);
  if (threadIdx.x == 0) partial[static_cast<int64_t>(blockIdx.y) * C + c] = Sums2<Acc>{s_dy, s_dyx};
}

template <class T, class Acc>
__global__ void bn_grad_sums_channels_last(const T* dy, const T* x, const Acc* mean, Sums2<Acc>* partial, int64_t C,
                                           int64_t R, int64_t per_chunk) {
  __shared__ Acc tile_dy[kRowLanes][kColumnTile + 1];
  __shared__ Acc tile_dyx[kRowLanes][kColumnTile + 1];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * per_chunk;
  const int64_t end = begin + per_chunk < R ? begin + per_chunk : R;
  Acc s_dy = 0, s_dyx = 0;
  if (c < C) {
    const Acc mu = mean[c];
    for (int64_t r = begin + threadIdx.y; r < end; r += kRowLanes) {
      const Acc g = to_acc<Acc>(dy[r * C + c]);
      s_dy += g;
      s_dyx += g * (to_acc<Acc>(x[r * C + c]) - mu);
    }
  }
  if (sum_row_lanes(tile_dy, tile_dyx, s_dy, s_dyx, c < C)) {
    partial[static_cast<int64_t>(blockIdx.y) * C + c] = Sums2<Acc>{s_dy, s_dyx};
  }
}

// ---- Stage 2: a thread per channel ------------------------------------------------------------------
// Forward. Training (partial != nullptr): batch statistics, running statistics updated. Evaluation: the
// running statistics. Writes save_mean/save_invstd and coef[c] = (mean, invstd * weight, bias).
template <class Acc>
__global__ void bn_forward_channels(const Welford<Acc>* partial, int64_t chunks, int64_t C, Acc count, Acc momentum,
                                    Acc eps, Vec weight, Vec bias, Vec running_mean, Vec running_var, Acc* save_mean,
                                    Acc* save_invstd, Acc* coef) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < C;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Acc mean, var;
    if (partial) {
      Welford<Acc> w = partial[c];
      for (int64_t k = 1; k < chunks; ++k) w = welford_merge(w, partial[k * C + c]);
      mean = w.mean;
      var = w.m2 / count;
      if (running_mean.base) {
        vec_store<Acc>(running_mean, c, (Acc(1) - momentum) * vec_at<Acc>(running_mean, c, Acc(0)) + momentum * mean);
      }
      if (running_var.base) {
        const Acc unbiased = w.m2 / (count - Acc(1));
        vec_store<Acc>(running_var, c, (Acc(1) - momentum) * vec_at<Acc>(running_var, c, Acc(0)) + momentum * unbiased);
      }
    } else {
      mean = vec_at<Acc>(running_mean, c, Acc(0));
      var = vec_at<Acc>(running_var, c, Acc(1));
    }
    const Acc invstd = Acc(1) / sqrt(var + eps);
    save_mean[c] = mean;
    save_invstd[c] = invstd;
    coef[3 * c] = mean;
    coef[3 * c + 1] = invstd * vec_at<Acc>(weight, c, Acc(1));
    coef[3 * c + 2] = vec_at<Acc>(bias, c, Acc(0));
  }
}

// Backward: dweight, dbias from the sums (when wanted), and coef[c] = (mean, k, mean of dy, invstd * weight)
// for dx = (dy - mean_dy - (x - mean) * k) * invstd * weight (k and mean_dy are 0 in evaluation mode).
template <class Acc>
__global__ void bn_backward_channels(const Sums2<Acc>* partial, int64_t chunks, int64_t C, Acc count, bool training,
                                     const Acc* mean, const Acc* invstd, Vec weight, Vec dweight, Vec dbias, Acc* coef) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < C;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Acc s_dy = 0, s_dyx = 0;
    if (partial) {
      for (int64_t k = 0; k < chunks; ++k) {
        s_dy += partial[k * C + c].dy;
        s_dyx += partial[k * C + c].dy_xmu;
      }
    }
    const Acc is = invstd[c];
    vec_store<Acc>(dweight, c, s_dyx * is);
    vec_store<Acc>(dbias, c, s_dy);
    if (coef) {
      coef[4 * c] = mean[c];
      coef[4 * c + 1] = training ? s_dyx * is * is / count : Acc(0);
      coef[4 * c + 2] = training ? s_dy / count : Acc(0);
      coef[4 * c + 3] = is * vec_at<Acc>(weight, c, Acc(1));
    }
  }
}

// ---- Elementwise passes over the dense layout (x, y, dy, dx share it) ---------------------------------
template <class Index>
__device__ __forceinline__ Index channel_of(Index i, Index C, Index S, bool channels_last) {
  return channels_last ? i % C : (i / S) % C;
}

template <class T, class Acc, class Index>
__global__ void bn_apply(const T* x, T* y, const Acc* coef, Index total, Index C, Index S, bool channels_last) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const Index c = channel_of(i, C, S, channels_last);
    y[i] = from_acc<T>((to_acc<Acc>(x[i]) - coef[3 * c]) * coef[3 * c + 1] + coef[3 * c + 2]);
  }
}

template <class T, class Acc, class Index>
__global__ void bn_backward_dx(const T* dy, const T* x, T* dx, const Acc* coef, Index total, Index C, Index S,
                               bool channels_last) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const Index c = channel_of(i, C, S, channels_last);
    const Acc* k = coef + 4 * c;
    dx[i] = from_acc<T>((to_acc<Acc>(dy[i]) - k[2] - (to_acc<Acc>(x[i]) - k[0]) * k[1]) * k[3]);
  }
}

// ---- Host side ----------------------------------------------------------------------------------------
struct Geometry {
  int64_t N = 0, C = 0, S = 0, R = 0;
  bool channels_last = false;
  int64_t chunks = 1, per_chunk = 0;
  dim3 grid, block;
};

// Dims of size 1 aside, `t` has exactly `strides` (element strides of a [N, C, S] tensor).
bool has_strides(const hal_tensor_t& t, const int64_t (&strides)[3]) {
  for (int d = 0; d < 3; ++d) {
    if (t.shape[d] != 1 && t.strides[d] != strides[d]) return false;
  }
  return true;
}

// The layout of x [N, C, S]: channels-first or channels-last; false for anything else. With S == 1 or
// C == 1 both name the same addresses.
bool layout_of(const hal_tensor_t& x, Geometry& g) {
  if (x.data == nullptr || x.ndim != 3) return false;
  g.N = x.shape[0];
  g.C = x.shape[1];
  g.S = x.shape[2];
  g.R = g.N * g.S;
  const int64_t first[3] = {g.C * g.S, g.S, 1}, last[3] = {g.C * g.S, 1, g.C};
  if (has_strides(x, last)) g.channels_last = true;
  else if (has_strides(x, first)) g.channels_last = false;
  else return false;
  return true;
}

bool same_layout(const hal_tensor_t& t, const hal_tensor_t& x) {
  if (t.data == nullptr || t.ndim != 3 || t.dtype.code != x.dtype.code || t.dtype.bits != x.dtype.bits) return false;
  for (int d = 0; d < 3; ++d) {
    if (t.shape[d] != x.shape[d] || (x.shape[d] != 1 && t.strides[d] != x.strides[d])) return false;
  }
  return true;
}

// Chunks of R for stage 1: enough blocks to fill the GPU a few times over, each with work enough to be
// worth a block.
void plan_chunks(Geometry& g, int32_t device) {
  const int64_t target = static_cast<int64_t>(sm_count(device)) * 4;
  int64_t chunks;
  if (g.channels_last) {
    const int64_t tiles = (g.C + kColumnTile - 1) / kColumnTile;
    chunks = std::min<int64_t>((target + tiles - 1) / tiles, (g.R + 63) / 64);
    g.block = dim3(kColumnTile, kRowLanes);
    g.grid.x = static_cast<unsigned>(tiles);
  } else {
    chunks = std::min<int64_t>((target + g.C - 1) / g.C, (g.R + 2047) / 2048);
    g.block = dim3(kFlatThreads);
    g.grid.x = static_cast<unsigned>(g.C);
  }
  chunks = std::max<int64_t>(1, std::min<int64_t>(chunks, 65535));
  g.per_chunk = (g.R + chunks - 1) / chunks;
  g.chunks = (g.R + g.per_chunk - 1) / g.per_chunk;
  g.grid.y = static_cast<unsigned>(g.chunks);
  g.grid.z = 1;
}

constexpr size_t align16(size_t bytes) { return (bytes + 15) / 16 * 16; }

template <class T, class Acc, class Index>
hal_status_t launch_apply(const OpCall& call, const Geometry& g, const T* x, T* y, const Acc* coef) {
  const Index total = static_cast<Index>(g.R * g.C);
  return launch_kernel<bn_apply<T, Acc, Index>>("batch_norm_apply", call.device, grid_for(g.R * g.C, kFlatThreads),
                                                kFlatThreads, 0, call.stream, x, y, coef, total,
                                                static_cast<Index>(g.C), static_cast<Index>(g.S), g.channels_last);
}

template <class T, class Acc, class Index>
hal_status_t launch_dx(const OpCall& call, const Geometry& g, const T* dy, const T* x, T* dx, const Acc* coef) {
  const Index total = static_cast<Index>(g.R * g.C);
  return launch_kernel<bn_backward_dx<T, Acc, Index>>("batch_norm_backward_dx", call.device,
                                                      grid_for(g.R * g.C, kFlatThreads), kFlatThreads, 0, call.stream,
                                                      dy, x, dx, coef, total, static_cast<Index>(g.C),
                                                      static_cast<Index>(g.S), g.channels_last);
}

bool fits_32bit(const Geometry& g) { return g.R * g.C < (int64_t{1} << 31); }

template <class T>
hal_status_t forward(const OpCall& call, Geometry& g) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const DType acc = std::is_same<Acc, double>::value ? DType::F64 : DType::F32;
  const bool training = scalar_as_int(op_scalar(call, 0)) != 0;
  const Acc momentum = static_cast<Acc>(scalar_as_double(op_scalar(call, 1)));
  const Acc eps = static_cast<Acc>(scalar_as_double(op_scalar(call, 2)));
  const hal_tensor_t* in = call.inputs;
  const hal_tensor_t* out = call.outputs;
  if (!is_acc_vector(out[1], g.C, acc) || !is_acc_vector(out[2], g.C, acc)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: save_mean/save_invstd must be [C] of the accumulation type");
  }
  Vec running_mean, running_var;
  if (training) {
    // Updated in place: outputs 3 and 4 are the inputs 3 and 4 (or absent together with them).
    for (int k = 3; k < 5; ++k) {
      if (is_absent(in[k]) != is_absent(out[k]) || (!is_absent(in[k]) && in[k].data != out[k].data)) {
        return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: running statistics must be updated in place");
      }
    }
    running_mean = vec_of(out[3]);
    running_var = vec_of(out[4]);
    if (g.R == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: no elements per channel in training");
  } else {
    if (is_absent(in[3]) || is_absent(in[4])) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: evaluation needs running statistics");
    }
    running_mean = vec_of(in[3]);
    running_var = vec_of(in[4]);
  }
  if (training) plan_chunks(g, call.device);
  const size_t partial_bytes = training ? align16(static_cast<size_t>(g.chunks * g.C) * sizeof(Welford<Acc>)) : 0;
  const size_t coef_bytes = static_cast<size_t>(g.C) * 3 * sizeof(Acc);
  StreamScratch scratch(call.device, call.stream, partial_bytes + coef_bytes);
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "batch_norm: no scratch memory");
  Welford<Acc>* partial = training ? scratch.as<Welford<Acc>>() : nullptr;
  Acc* coef = reinterpret_cast<Acc*>(scratch.as<char>() + partial_bytes);
  const T* x = reinterpret_cast<const T*>(element0(in[0]));
  T* y = reinterpret_cast<T*>(element0(out[0]));
  if (training) {
    hal_status_t s = g.channels_last
                         ? launch_kernel<bn_stats_channels_last<T, Acc>>("batch_norm_stats", call.device, g.grid,
                                                                         g.block, 0, call.stream, x, partial, g.C,
                                                                         g.R, g.per_chunk)
                         : launch_kernel<bn_stats_channels_first<T, Acc>>("batch_norm_stats", call.device, g.grid,
                                                                          g.block, 0, call.stream, x, partial, g.C,
                                                                          g.S, g.R, g.per_chunk);
    if (s != HAL_STATUS_SUCCESS) return s;
  }
  if (hal_status_t s = launch_kernel<bn_forward_channels<Acc>>(
          "batch_norm_channels", call.device, grid_for(g.C, 256), 256, 0, call.stream, partial, g.chunks, g.C,
          static_cast<Acc>(g.R), momentum, eps, vec_of(in[1]), vec_of(in[2]), running_mean, running_var,
          reinterpret_cast<Acc*>(element0(out[1])), reinterpret_cast<Acc*>(element0(out[2])), coef);
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (g.R == 0) return HAL_STATUS_SUCCESS;
  return fits_32bit(g) ? launch_apply<T, Acc, uint32_t>(call, g, x, y, coef)
                       : launch_apply<T, Acc, int64_t>(call, g, x, y, coef);
}

template <class T>
hal_status_t backward(const OpCall& call, Geometry& g) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const DType acc = std::is_same<Acc, double>::value ? DType::F64 : DType::F32;
  const bool training = scalar_as_int(op_scalar(call, 0)) != 0;
  const hal_tensor_t* in = call.inputs;
  const hal_tensor_t& dx = call.outputs[0];
  const hal_tensor_t& dw = call.outputs[1];
  const hal_tensor_t& db = call.outputs[2];
  if (!is_acc_vector(in[3], g.C, acc) || !is_acc_vector(in[4], g.C, acc)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm backward: mean/invstd must be [C] of the accumulation type");
  }
  if ((!is_absent(dx) && !same_layout(dx, in[1])) || !is_param_vector(dw, g.C) || !is_param_vector(db, g.C)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm backward: dx must match x, dweight/dbias must be [C]");
  }
  const bool want_dx = !is_absent(dx) && g.R > 0;
  const bool need_sums = (want_dx && training) || !is_absent(dw) || !is_absent(db);
  if (!want_dx && !need_sums) return HAL_STATUS_SUCCESS;
  if (need_sums) plan_chunks(g, call.device);
  const bool sums_launched = need_sums && g.R > 0;
  const size_t partial_bytes = sums_launched ? align16(static_cast<size_t>(g.chunks * g.C) * sizeof(Sums2<Acc>)) : 0;
  const size_t coef_bytes = want_dx ? static_cast<size_t>(g.C) * 4 * sizeof(Acc) : 0;
  StreamScratch scratch(call.device, call.stream, partial_bytes + coef_bytes);
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "batch_norm backward: no scratch memory");
  Sums2<Acc>* partial = sums_launched ? scratch.as<Sums2<Acc>>() : nullptr;
  Acc* coef = want_dx ? reinterpret_cast<Acc*>(scratch.as<char>() + partial_bytes) : nullptr;
  const T* dy = reinterpret_cast<const T*>(element0(in[0]));
  const T* x = reinterpret_cast<const T*>(element0(in[1]));
  const Acc* mean = reinterpret_cast<const Acc*>(element0(in[3]));
  const Acc* invstd = reinterpret_cast<const Acc*>(element0(in[4]));
  if (sums_launched) {
    hal_status_t s = g.channels_last
                         ? launch_kernel<bn_grad_sums_channels_last<T, Acc>>("batch_norm_grad_sums", call.device,
                                                                             g.grid, g.block, 0, call.stream, dy, x,
                                                                             mean, partial, g.C, g.R, g.per_chunk)
                         : launch_kernel<bn_grad_sums_channels_first<T, Acc>>("batch_norm_grad_sums", call.device,
                                                                              g.grid, g.block, 0, call.stream, dy, x,
                                                                              mean, partial, g.C, g.S, g.R,
                                                                              g.per_chunk);
    if (s != HAL_STATUS_SUCCESS) return s;
  }
  if (hal_status_t s = launch_kernel<bn_backward_channels<Acc>>(
          "batch_norm_backward_channels", call.device, grid_for(g.C, 256), 256, 0, call.stream, partial, g.chunks, g.C,
          static_cast<Acc>(g.R), training, mean, invstd, vec_of(in[2]), vec_of(dw), vec_of(db), coef);
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (!want_dx) return HAL_STATUS_SUCCESS;
  T* dxp = reinterpret_cast<T*>(element0(dx));
  return fits_32bit(g) ? launch_dx<T, Acc, uint32_t>(call, g, dy, x, dxp, coef)
                       : launch_dx<T, Acc, int64_t>(call, g, dy, x, dxp, coef);
}

}  // namespace

hal_status_t launch_batch_norm(const OpCall& call) {
  const bool is_backward = call.op == HAL_OP_BATCH_NORM_BACKWARD;
  if (is_backward ? !has_operands(call, 5, 3, 1) : !has_operands(call, 5, 5, 3)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: unexpected operands");
  }
  const hal_tensor_t& x = call.inputs[is_backward ? 1 : 0];
  Geometry g;
  if (!layout_of(x, g)) return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: x must be a dense [N, C, S]");
  if (g.C == 0) return HAL_STATUS_SUCCESS;
  const DType t = dtype_of(x.dtype);
  if (is_backward) {
    if (!same_layout(call.inputs[0], x) || !is_param_vector(call.inputs[2], g.C)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm backward: dy must match x; weight must be [C]");
    }
  } else {
    if (!same_layout(call.outputs[0], x)) return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: y must match x");
    for (int k = 1; k < 5; ++k) {
      if (!is_param_vector(call.inputs[k], g.C)) {
        return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: weight, bias and running statistics must be [C]");
      }
    }
    for (int k = 3; k < 5; ++k) {
      if (!is_param_vector(call.outputs[k], g.C)) {
        return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: running statistics must be [C]");
      }
    }
  }
  switch (t) {
    case DType::F32: return is_backward ? backward<float>(call, g) : forward<float>(call, g);
    case DType::F16: return is_backward ? backward<__half>(call, g) : forward<__half>(call, g);
    case DType::BF16: return is_backward ? backward<__nv_bfloat16>(call, g) : forward<__nv_bfloat16>(call, g);
    case DType::F64: return is_backward ? backward<double>(call, g) : forward<double>(call, g);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: unsupported dtype");
  }
}

}  // namespace hal_gpu
