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
// The math is the family's shared source (batch_norm.cuh: a thread's share of a channel, the per-channel step,
// the per-element formulas), which the SPIR-V kernels compose too; the problem is read by read_batch_norm()
// (batch_norm_geometry.cpp), as the SPIR-V planner reads it.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/batch_norm_geometry.h"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/norm_rows.cuh"
#include "kernels/op_call.h"
#include "kernels/param_vector.cuh"
// After family_support.cuh, whose to_acc/from_acc the shared kernel math uses.
#include "kernels/batch_norm.cuh"

namespace hal_gpu {
namespace {

constexpr int kFlatThreads = 256;  // channels-first stage 1, and the elementwise passes
// Channels-last stage 1: blocks of kColumnTile channels x kRowLanes row lanes (norm_rows.cuh).


// ---- Block-level combination (warp shuffles; the SPIR-V kernels use work-group collectives) --------
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

// ---- Stage 1 of the forward: Welford partials per (chunk, channel) ----------------------------------
template <class T, class Acc>
__global__ void bn_stats_channels_first(const T* x, Welford<Acc>* partial, int64_t C, int64_t S, int64_t R,
                                        int64_t per_chunk) {
  __shared__ Welford<Acc> shared[32];
  const int64_t c = blockIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * per_chunk;
  const int64_t end = begin + per_chunk < R ? begin + per_chunk : R;
  Welford<Acc> w{Acc(0), Acc(0), Acc(0)};
  welford_channels_first<T, Acc>(w, x, c, C, S, begin + threadIdx.x, end, blockDim.x);
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
  if (c < C) welford_channels_last<T, Acc>(w, x, c, C, begin + threadIdx.y, end, kRowLanes);
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
  grad_sums_channels_first<T, Acc>(s_dy, s_dyx, dy, x, mu, c, C, S, begin + threadIdx.x, end, blockDim.x);
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
  if (c < C) grad_sums_channels_last<T, Acc>(s_dy, s_dyx, dy, x, mean[c], c, C, begin + threadIdx.y, end, kRowLanes);
  if (sum_row_lanes(tile_dy, tile_dyx, s_dy, s_dyx, c < C)) {
    partial[static_cast<int64_t>(blockIdx.y) * C + c] = Sums2<Acc>{s_dy, s_dyx};
  }
}

// ---- Stage 2: a thread per channel ------------------------------------------------------------------
// A channel's parameter (param_vector.cuh's Vec at channel c) as batch_norm.cuh's per-channel step reads and writes it.
template <class Acc>
struct VecAt {
  const Vec& v;
  int64_t c;
  __device__ __forceinline__ bool present() const { return v.base != nullptr; }
  __device__ __forceinline__ Acc load(Acc absent_value) const { return vec_at<Acc>(v, c, absent_value); }
  __device__ __forceinline__ void store(Acc value) const { vec_store<Acc>(v, c, value); }
};

// Forward. Training (partial != nullptr): batch statistics, running statistics updated. Evaluation: the
// running statistics. Writes save_mean/save_invstd and coef[c] = (mean, invstd * weight, bias).
template <class Acc>
__global__ void bn_forward_channels(const Welford<Acc>* partial, int64_t chunks, int64_t C, Acc count, Acc momentum,
                                    Acc eps, Vec weight, Vec bias, Vec running_mean, Vec running_var, Acc* save_mean,
                                    Acc* save_invstd, Acc* coef) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < C;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Welford<Acc> w{Acc(0), Acc(0), Acc(0)};
    if (partial) {
      w = partial[c];
      for (int64_t k = 1; k < chunks; ++k) w = welford_merge(w, partial[k * C + c]);
    }
    Acc mean, invstd;
    bn_statistics(partial != nullptr, w, count, momentum, eps, VecAt<Acc>{running_mean, c},
                  VecAt<Acc>{running_var, c}, mean, invstd);
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
    if (coef) bn_grad_coefficients(s_dy, s_dyx, mean[c], is, VecAt<Acc>{weight, c}, count, training, coef + 4 * c);
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
    y[i] = from_acc<T>(bn_output(to_acc<Acc>(x[i]), coef[3 * c], coef[3 * c + 1], coef[3 * c + 2]));
  }
}

template <class T, class Acc, class Index>
__global__ void bn_backward_dx(const T* dy, const T* x, T* dx, const Acc* coef, Index total, Index C, Index S,
                               bool channels_last) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const Index c = channel_of(i, C, S, channels_last);
    dx[i] = from_acc<T>(bn_input_grad(to_acc<Acc>(dy[i]), to_acc<Acc>(x[i]), coef + 4 * c));
  }
}

// ---- Host side ----------------------------------------------------------------------------------------
// The problem (read_batch_norm, batch_norm_geometry.h) and stage 1's chunks of R and launch shape.
struct Geometry {
  int64_t N = 0, C = 0, S = 0, R = 0;
  bool channels_last = false;
  int64_t chunks = 1, per_chunk = 0;
  dim3 grid, block;
};

Geometry geometry_of(const BatchNormProblem& p) {
  Geometry g;
  g.N = p.N;
  g.C = p.C;
  g.S = p.S;
  g.R = p.R;
  g.channels_last = p.channels_last;
  return g;
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
hal_status_t forward(const OpCall& call, const BatchNormProblem& p) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  Geometry g = geometry_of(p);
  const bool training = p.training;
  const Acc momentum = static_cast<Acc>(p.momentum);
  const Acc eps = static_cast<Acc>(p.eps);
  const hal_tensor_t* in = call.inputs;
  const hal_tensor_t* out = call.outputs;
  // Training updates the running statistics in place: outputs 3 and 4 are the inputs 3 and 4 (or absent).
  const Vec running_mean = vec_of(training ? out[3] : in[3]);
  const Vec running_var = vec_of(training ? out[4] : in[4]);
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
hal_status_t backward(const OpCall& call, const BatchNormProblem& p) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  Geometry g = geometry_of(p);
  const bool training = p.training;
  const hal_tensor_t* in = call.inputs;
  const hal_tensor_t& dx = call.outputs[0];
  const hal_tensor_t& dw = call.outputs[1];
  const hal_tensor_t& db = call.outputs[2];
  const bool want_dx = p.want_dx, need_sums = p.need_sums;
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
  BatchNormProblem p;
  const char* why = nullptr;
  if (!read_batch_norm(call.op, call.inputs, call.num_inputs, call.outputs, call.num_outputs, call.scalars,
                       call.num_scalars, &p, &why)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, why);
  }
  if (p.C == 0) return HAL_STATUS_SUCCESS;
  switch (p.dtype) {
    case DType::F32: return p.backward ? backward<float>(call, p) : forward<float>(call, p);
    case DType::F16: return p.backward ? backward<__half>(call, p) : forward<__half>(call, p);
    case DType::BF16: return p.backward ? backward<__nv_bfloat16>(call, p) : forward<__nv_bfloat16>(call, p);
    case DType::F64: return p.backward ? backward<double>(call, p) : forward<double>(call, p);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "batch_norm: unsupported dtype");
  }
}

}  // namespace hal_gpu
