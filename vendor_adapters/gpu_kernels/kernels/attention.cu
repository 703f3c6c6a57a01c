// ATTENTION and ATTENTION_BACKWARD (adapter.h): softmax attention computed tile by tile, without the
// [L, S] score matrix in memory (the flash-attention scheme: a running maximum and sum per query row, and the
// log-sum-exp kept for the backward pass, which recomputes the probabilities from it).
//
// Forward: a block of kRows warps takes kRows query rows of one (batch, head); each warp owns one row. The
// keys come in tiles of 32, staged transposed in shared memory ([D][33]: conflict-free for both the staging
// and the reads), so that lane j computes the score of key j against the row's query (broadcast from shared
// memory); the tile's probabilities then weight the value rows, which each lane accumulates over its own
// dims (d = lane + 32 t, DPL of them). Values are read from global memory: coalesced rows that the block's
// warps share through L1.
//
// Backward, in two kernels and no atomics (results do not depend on scheduling):
//   - dq: a warp per query row, as the forward; it also writes delta_i = sum_d dout_i,d * out_i,d, which
//     the second kernel needs for every row;
//   - dk, dv: a warp per key row, over the query tiles of every query head that reads this key/value head
//     (grouped-query attention), the queries staged transposed as the forward stages keys.
// With p = exp(scale * q.k + bias - lse) and dp = dout . v: dv_j = sum_i p dout_i, ds = p (dp - delta_i),
// dq_i = scale sum_j ds k_j, dk_j = scale sum_i ds q_i.
//
// The sums of dout . v that the backward needs for 32 keys (queries) at once are reduced across the warp with
// one reduce-scatter (31 shuffles) rather than a warp sum each.
//
// f32, f16 and bf16 storage; every sum in f32. Head dims up to 256 (DPL 1, 2, 4 or 8 per lane). Warps are
// logical 32-lane warps (gpu_runtime.h): on AMD's 64-wide wavefronts a wavefront runs two rows.
#include <cmath>
#include <cstdint>

#include "kernels/adapter_services.h"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"

namespace hal_gpu {
namespace {

// Four iterations at a time of the loops over a tile's rows, for the loads' latency; only where the compiler
// does it for loops that shuffle (nvcc: clang declines to partially unroll loops with convergent operations).
#if defined(HAL_GPU_HIP)
#define HAL_UNROLL_4
#else
#define HAL_UNROLL_4 _Pragma("unroll 4")
#endif

constexpr int kLanes = 32;                   // a logical warp
constexpr int kRows = 8;                     // warps per block: query rows (forward, dq) or key rows (dk, dv)
constexpr int kThreads = kRows * kLanes;
constexpr int kTile = 32;                    // keys (forward, dq) or queries (dk, dv) per staged tile
constexpr int kTileStride = kTile + 1;       // the padded row of a transposed tile in shared memory
constexpr int kMaxHeadDim = 256;

// Geometry shared by the kernels: sizes, and strides in elements of the batch, head and sequence dims of
// each [B, H, seq, D] tensor (the last dim is contiguous).
struct Geometry {
  int64_t B, Hq, Hk, L, S, D;
  int64_t q[3], k[3], v[3], o[3];   // q (and dq, dout: passed separately below), k, v, out
  int64_t dq[3], dk[3], dv[3], dout[3];
  const char* bias = nullptr;        // [B, Hq, L, S] scores to add, or null
  DType bias_dtype = DType::F32;
  int32_t bias_size = 4;
  int64_t bias_strides[4] = {};
  float scale = 1.f;
  bool causal = false;
};

__device__ __forceinline__ float bias_at(const Geometry& g, int64_t b, int64_t h, int64_t i, int64_t j) {
  const int64_t offset = b * g.bias_strides[0] + h * g.bias_strides[1] + i * g.bias_strides[2] + j * g.bias_strides[3];
  return load_as<float>(g.bias + offset * g.bias_size, g.bias_dtype);
}

__device__ __forceinline__ float shuffle(float v, int lane) { return __shfl_sync(0xffffffffu, v, lane, kLanes); }

// sum_d row[d] * tile[d][lane]: the row broadcast from shared memory, the tile's column of this lane. Four
// partial sums, so that the FMAs do not wait on each other.
__device__ __forceinline__ float dot_with_column(const float* row, const float* tile, int64_t D, int lane) {
  float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
  int64_t d = 0;
  for (; d + 4 <= D; d += 4) {
    a0 += row[d] * tile[d * kTileStride + lane];
    a1 += row[d + 1] * tile[(d + 1) * kTileStride + lane];
    a2 += row[d + 2] * tile[(d + 2) * kTileStride + lane];
    a3 += row[d + 3] * tile[(d + 3) * kTileStride + lane];
  }
  for (; d < D; ++d) a0 += row[d] * tile[d * kTileStride + lane];
  return (a0 + a1) + (a2 + a3);
}

// Each lane holds its partial sums of 32 quantities (part[k] for quantity k); afterwards lane k's part[0] is
// the warp's total of quantity k. A reduce-scatter: 31 shuffles for all 32 sums, where a warp_sum each would
// take 160.
__device__ __forceinline__ float reduce_scatter(float (&part)[kTile], int lane) {
#pragma unroll
  for (int width = kTile / 2; width >= 1; width /= 2) {
    const bool upper = (lane & width) != 0;
#pragma unroll
    for (int k = 0; k < width; ++k) {
      const float send = upper ? part[k] : part[k + width];
      const float keep = upper ? part[k + width] : part[k];
      part[k] = keep + __shfl_xor_sync(0xffffffffu, send, width);
    }
  }
  return part[0];
}

// The step both backward kernels end a tile with: ds = p (dp - delta) scale for this lane's row of the
// tile, dp being the warp's total of `part` for it (reduce_scatter), then grad[d] += sum_r ds_r tile[d][r]
// over the tile's first `rows` rows, for this lane's dims (dq from the keys' tile, dk from the queries').
template <int DPL>
__device__ __forceinline__ void add_ds_times_tile(float (&grad)[DPL], float (&part)[kTile], float p, float row_delta,
                                                  float scale, const float* tile, int rows, int64_t D, int lane) {
  const float dp = reduce_scatter(part, lane);
  const float ds = p * (dp - row_delta) * scale;
HAL_UNROLL_4
  for (int r = 0; r < rows; ++r) {
    const float dsr = shuffle(ds, r);
#pragma unroll
    for (int t = 0; t < DPL; ++t) {
      const int64_t d = lane + kLanes * t;
      if (d < D) grad[t] += dsr * tile[d * kTileStride + r];
    }
  }
}

// The query row of this thread's warp in the forward and dq kernels (a block takes kRows rows of one
// (batch, head); the last block of a head may hold fewer), with the batch, head and key/value head it reads.
struct QueryRow {
  int warp, lane;
  int64_t bh, first_row, b, h, hk, i;
  bool ok;  // i < L
};
__device__ __forceinline__ QueryRow query_row(const Geometry& g) {
  QueryRow r;
  r.warp = threadIdx.x / kLanes;
  r.lane = threadIdx.x % kLanes;
  const int64_t row_blocks = (g.L + kRows - 1) / kRows;
  r.bh = blockIdx.x / row_blocks;
  r.first_row = (blockIdx.x % row_blocks) * kRows;
  r.b = r.bh / g.Hq;
  r.h = r.bh % g.Hq;
  r.hk = r.h / (g.Hq / g.Hk);
  r.i = r.first_row + r.warp;
  r.ok = r.i < g.L;
  return r;
}

// rows [0, 32) of a [seq, D] operand starting at `first`, transposed into tile[d * kTileStride + r] as floats
// (rows past `count` as zeros); every thread of the block takes part.
template <class T>
__device__ void stage_transposed(float* tile, const T* base, int64_t row_stride, int64_t first, int64_t count,
                                 int64_t D) {
  for (int64_t idx = threadIdx.x; idx < kTile * D; idx += blockDim.x) {
    const int64_t r = idx / D, d = idx - r * D;
    tile[d * kTileStride + r] = first + r < count ? to_acc<float>(base[(first + r) * row_stride + d]) : 0.f;
  }
}

template <class T, int DPL>
__global__ void __launch_bounds__(kThreads) attention_forward(const T* q, const T* k, const T* v, T* out, float* lse,
                                                              Geometry g) {
  extern __shared__ float shared[];
  float* k_tile = shared;                                   // [D][kTileStride]
  float* q_rows = shared + g.D * kTileStride;               // [kRows][D], scaled
  const auto [warp, lane, bh, first_row, b, h, hk, i, row_ok] = query_row(g);
  if (row_ok) {
    const T* qr = q + b * g.q[0] + h * g.q[1] + i * g.q[2];
    for (int64_t d = lane; d < g.D; d += kLanes) q_rows[warp * g.D + d] = to_acc<float>(qr[d]) * g.scale;
  }
  const T* kb = k + b * g.k[0] + hk * g.k[1];
  const T* vb = v + b * g.v[0] + hk * g.v[1];
  const int64_t last_row = first_row + kRows - 1 < g.L - 1 ? first_row + kRows - 1 : g.L - 1;
  const int64_t key_end = g.causal && last_row + 1 < g.S ? last_row + 1 : g.S;
  float acc[DPL];
#pragma unroll
  for (int t = 0; t < DPL; ++t) acc[t] = 0.f;
  float m = -INFINITY, l = 0.f;
  for (int64_t j0 = 0; j0 < key_end; j0 += kTile) {
    __syncthreads();  // the previous tile is read by every warp
    stage_transposed(k_tile, kb, g.k[2], j0, g.S, g.D);
    __syncthreads();
    if (!row_ok) continue;
    const int64_t j = j0 + lane;
    const bool valid = j < g.S && (!g.causal || j <= i);
    float s = -INFINITY;
    if (valid) {
      const float dot = dot_with_column(q_rows + warp * g.D, k_tile, g.D, lane);
      s = g.bias ? dot + bias_at(g, b, h, i, j) : dot;
    }
    const float m_new = fmaxf(m, warp_max(s));
    if (m_new == -INFINITY) continue;  // every key so far masked (the whole warp agrees)
    const float p = s == -INFINITY ? 0.f : expf(s - m_new);
    const float correction = m == -INFINITY ? 0.f : expf(m - m_new);
    l = l * correction + warp_sum(p);
    m = m_new;
#pragma unroll
    for (int t = 0; t < DPL; ++t) acc[t] *= correction;
    const int64_t limit = g.causal ? (i + 1 < g.S ? i + 1 : g.S) : g.S;
    const int keys = static_cast<int>(limit - j0 < kTile ? limit - j0 : kTile);
HAL_UNROLL_4
    for (int jj = 0; jj < keys; ++jj) {
      const float pj = shuffle(p, jj);
      const T* vr = vb + (j0 + jj) * g.v[2];
#pragma unroll
      for (int t = 0; t < DPL; ++t) {
        const int64_t d = lane + kLanes * t;
        if (d < g.D) acc[t] += pj * to_acc<float>(vr[d]);
      }
    }
  }
  if (!row_ok) return;
  const float inverse = l > 0.f ? 1.f / l : 0.f;
  T* orow = out + b * g.o[0] + h * g.o[1] + i * g.o[2];
#pragma unroll
  for (int t = 0; t < DPL; ++t) {
    const int64_t d = lane + kLanes * t;
    if (d < g.D) orow[d] = from_acc<T>(acc[t] * inverse);
  }
  if (lane == 0) lse[bh * g.L + i] = l > 0.f ? m + logf(l) : INFINITY;
}

// dq for kRows query rows; writes delta for them.
template <class T, int DPL>
__global__ void __launch_bounds__(kThreads) attention_backward_dq(const T* dout, const T* q, const T* k, const T* v,
                                                                  const T* out, const float* lse, float* delta, T* dq,
                                                                  Geometry g) {
  extern __shared__ float shared[];
  float* k_tile = shared;                       // [D][kTileStride]
  float* q_rows = shared + g.D * kTileStride;   // [kRows][D], scaled
  const auto [warp, lane, bh, first_row, b, h, hk, i, row_ok] = query_row(g);
  float dout_row[DPL], grad[DPL];
  float row_delta = 0.f, row_lse = INFINITY;
#pragma unroll
  for (int t = 0; t < DPL; ++t) dout_row[t] = grad[t] = 0.f;
  if (row_ok) {
    const T* qr = q + b * g.q[0] + h * g.q[1] + i * g.q[2];
    for (int64_t d = lane; d < g.D; d += kLanes) q_rows[warp * g.D + d] = to_acc<float>(qr[d]) * g.scale;
    const T* dor = dout + b * g.dout[0] + h * g.dout[1] + i * g.dout[2];
    const T* orow = out + b * g.o[0] + h * g.o[1] + i * g.o[2];
    float partial = 0.f;
#pragma unroll
    for (int t = 0; t < DPL; ++t) {
      const int64_t d = lane + kLanes * t;
      if (d < g.D) {
        dout_row[t] = to_acc<float>(dor[d]);
        partial += dout_row[t] * to_acc<float>(orow[d]);
      }
    }
    row_delta = warp_sum(partial);
    row_lse = lse[bh * g.L + i];
    if (lane == 0) delta[bh * g.L + i] = row_delta;
  }
  const T* kb = k + b * g.k[0] + hk * g.k[1];
  const T* vb = v + b * g.v[0] + hk * g.v[1];
  const int64_t last_row = first_row + kRows - 1 < g.L - 1 ? first_row + kRows - 1 : g.L - 1;
  const int64_t key_end = g.causal && last_row + 1 < g.S ? last_row + 1 : g.S;
  for (int64_t j0 = 0; j0 < key_end; j0 += kTile) {
    __syncthreads();
    stage_transposed(k_tile, kb, g.k[2], j0, g.S, g.D);
    __syncthreads();
    if (!row_ok || row_lse == INFINITY) continue;
    const int64_t limit = g.causal ? (i + 1 < g.S ? i + 1 : g.S) : g.S;
    const int keys = static_cast<int>(limit - j0 < kTile ? limit - j0 : kTile);
    if (keys <= 0) continue;
    // p for key lane, then dp for every key of the tile (each lane keeps its own key's).
    float p = 0.f;
    if (lane < keys) {
      const float dot = dot_with_column(q_rows + warp * g.D, k_tile, g.D, lane);
      const float s = g.bias ? dot + bias_at(g, b, h, i, j0 + lane) : dot;
      p = expf(s - row_lse);
    }
    float part[kTile];
#pragma unroll
    for (int jj = 0; jj < kTile; ++jj) {
      part[jj] = 0.f;
      if (jj < keys) {
        const T* vr = vb + (j0 + jj) * g.v[2];
#pragma unroll
        for (int t = 0; t < DPL; ++t) {
          const int64_t d = lane + kLanes * t;
          if (d < g.D) part[jj] += dout_row[t] * to_acc<float>(vr[d]);
        }
      }
    }
    add_ds_times_tile(grad, part, p, row_delta, g.scale, k_tile, keys, g.D, lane);
  }
  if (!row_ok) return;
  T* dqr = dq + b * g.dq[0] + h * g.dq[1] + i * g.dq[2];
#pragma unroll
  for (int t = 0; t < DPL; ++t) {
    const int64_t d = lane + kLanes * t;
    if (d < g.D) dqr[d] = from_acc<T>(grad[t]);
  }
}

// dk and dv for kRows key rows of one (batch, key/value head).
template <class T, int DPL>
__global__ void __launch_bounds__(kThreads) attention_backward_dkdv(const T* dout, const T* q, const T* k,
                                                                    const T* v, const float* lse, const float* delta,
                                                                    T* dk, T* dv, Geometry g) {
  extern __shared__ float shared[];
  float* q_tile = shared;                       // [D][kTileStride], unscaled
  float* k_rows = shared + g.D * kTileStride;   // [kRows][D], scaled
  const int warp = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
  const int64_t row_blocks = (g.S + kRows - 1) / kRows;
  const int64_t bhk = blockIdx.x / row_blocks, first_key = (blockIdx.x % row_blocks) * kRows;
  const int64_t b = bhk / g.Hk, hk = bhk % g.Hk, group = g.Hq / g.Hk;
  const int64_t j = first_key + warp;
  const bool key_ok = j < g.S;
  float v_row[DPL], grad_k[DPL], grad_v[DPL];
#pragma unroll
  for (int t = 0; t < DPL; ++t) v_row[t] = grad_k[t] = grad_v[t] = 0.f;
  if (key_ok) {
    const T* kr = k + b * g.k[0] + hk * g.k[1] + j * g.k[2];
    for (int64_t d = lane; d < g.D; d += kLanes) k_rows[warp * g.D + d] = to_acc<float>(kr[d]) * g.scale;
    const T* vr = v + b * g.v[0] + hk * g.v[1] + j * g.v[2];
#pragma unroll
    for (int t = 0; t < DPL; ++t) {
      const int64_t d = lane + kLanes * t;
      if (d < g.D) v_row[t] = to_acc<float>(vr[d]);
    }
  }
  // Queries before the block's first key see none of its keys under the causal mask.
  const int64_t query_begin = g.causal ? first_key / kTile * kTile : 0;
  for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
    const int64_t bh = b * g.Hq + h;
    const T* qb = q + b * g.q[0] + h * g.q[1];
    const T* dob = dout + b * g.dout[0] + h * g.dout[1];
    for (int64_t i0 = query_begin; i0 < g.L; i0 += kTile) {
      __syncthreads();
      stage_transposed(q_tile, qb, g.q[2], i0, g.L, g.D);
      __syncthreads();
      if (!key_ok) continue;
      const int queries = static_cast<int>(g.L - i0 < kTile ? g.L - i0 : kTile);
      const int64_t i = i0 + lane;
      float p = 0.f, row_delta = 0.f;
      if (lane < queries && (!g.causal || j <= i)) {
        const float row_lse = lse[bh * g.L + i];
        if (row_lse != INFINITY) {
          const float dot = dot_with_column(k_rows + warp * g.D, q_tile, g.D, lane);
          const float s = g.bias ? dot + bias_at(g, b, h, i, j) : dot;
          p = expf(s - row_lse);
          row_delta = delta[bh * g.L + i];
        }
      }
      if (warp_max(p) == 0.f) continue;  // no query of the tile attends to this key
      float part[kTile];
#pragma unroll
      for (int ii = 0; ii < kTile; ++ii) {
        part[ii] = 0.f;
        const float pi = shuffle(p, ii);
        if (ii < queries) {
          const T* dor = dob + (i0 + ii) * g.dout[2];
#pragma unroll
          for (int t = 0; t < DPL; ++t) {
            const int64_t d = lane + kLanes * t;
            if (d < g.D) {
              const float dout_value = to_acc<float>(dor[d]);
              part[ii] += dout_value * v_row[t];
              grad_v[t] += pi * dout_value;
            }
          }
        }
      }
      add_ds_times_tile(grad_k, part, p, row_delta, g.scale, q_tile, queries, g.D, lane);
    }
  }
  if (!key_ok) return;
  T* dkr = dk + b * g.dk[0] + hk * g.dk[1] + j * g.dk[2];
  T* dvr = dv + b * g.dv[0] + hk * g.dv[1] + j * g.dv[2];
#pragma unroll
  for (int t = 0; t < DPL; ++t) {
    const int64_t d = lane + kLanes * t;
    if (d < g.D) {
      dkr[d] = from_acc<T>(grad_k[t]);
      dvr[d] = from_acc<T>(grad_v[t]);
    }
  }
}

// ---- host side ----------------------------------------------------------------------------------------

bool is_attention_dtype(DType d) { return d == DType::F32 || d == DType::F16 || d == DType::BF16; }

// [B, H, seq, D] with a contiguous last dim: its strides of the first three dims.
bool read_strides(const hal_tensor_t& t, int64_t B, int64_t H, int64_t seq, int64_t D, int64_t* strides) {
  if (t.ndim != 4 || t.shape[0] != B || t.shape[1] != H || t.shape[2] != seq || t.shape[3] != D) return false;
  if (D > 1 && t.strides[3] != 1) return false;
  for (int i = 0; i < 3; ++i) strides[i] = t.strides[i];
  return true;
}

// The geometry of a launch from q, k, v (and bias); false for what the kernels do not take.
bool read_geometry(const hal_tensor_t& q, const hal_tensor_t& k, const hal_tensor_t& v, const hal_tensor_t& bias,
                   const OpCall& call, Geometry* g) {
  if (q.ndim != 4 || k.ndim != 4 || v.ndim != 4) return false;
  g->B = q.shape[0];
  g->Hq = q.shape[1];
  g->L = q.shape[2];
  g->D = q.shape[3];
  g->Hk = k.shape[1];
  g->S = k.shape[2];
  if (g->D < 1 || g->D > kMaxHeadDim || g->Hk < 1 || g->Hq % g->Hk != 0) return false;
  const DType dtype = dtype_of(q.dtype);
  if (!is_attention_dtype(dtype) || dtype_of(k.dtype) != dtype || dtype_of(v.dtype) != dtype) return false;
  if (!read_strides(q, g->B, g->Hq, g->L, g->D, g->q) || !read_strides(k, g->B, g->Hk, g->S, g->D, g->k) ||
      !read_strides(v, g->B, g->Hk, g->S, g->D, g->v)) {
    return false;
  }
  if (!is_absent(bias)) {
    const DType bias_dtype = dtype_of(bias.dtype);
    if (bias.ndim != 4 || bias.data == nullptr || !(is_floating(bias_dtype) || bias_dtype == DType::Bool)) return false;
    const int64_t shape[4] = {g->B, g->Hq, g->L, g->S};
    for (int i = 0; i < 4; ++i) {
      if (bias.shape[i] != shape[i]) return false;
      g->bias_strides[i] = bias.strides[i];
    }
    if (bias_dtype == DType::Bool) return false;  // masks arrive as additive scores (the glue converts them)
    g->bias = element0(bias);
    g->bias_dtype = bias_dtype;
    g->bias_size = dtype_size(bias_dtype);
  }
  if (!has_scalars(call, 2)) return false;
  g->scale = static_cast<float>(call.scalars[0].kind == 0 ? call.scalars[0].value.f : scalar_as_int(call.scalars[0]));
  g->causal = scalar_as_int(call.scalars[1]) != 0;
  return true;
}

size_t shared_bytes(int64_t D) { return static_cast<size_t>(D) * (kTileStride + kRows) * sizeof(float); }

unsigned blocks(int64_t heads_and_batches, int64_t rows) {
  return static_cast<unsigned>(heads_and_batches * ((rows + kRows - 1) / kRows));
}

template <class T, int DPL>
hal_status_t forward(const OpCall& call, const Geometry& g) {
  const T* q = reinterpret_cast<const T*>(element0(call.inputs[0]));
  const T* k = reinterpret_cast<const T*>(element0(call.inputs[1]));
  const T* v = reinterpret_cast<const T*>(element0(call.inputs[2]));
  T* out = reinterpret_cast<T*>(element0(call.outputs[0]));
  float* lse = reinterpret_cast<float*>(element0(call.outputs[1]));
  return launch_kernel<attention_forward<T, DPL>>("attention", call.device, blocks(g.B * g.Hq, g.L), kThreads,
                                                  shared_bytes(g.D), call.stream, q, k, v, out, lse, g);
}

template <class T, int DPL>
hal_status_t backward(const OpCall& call, const Geometry& g) {
  auto in = [&](int n) { return reinterpret_cast<const T*>(element0(call.inputs[n])); };
  auto outp = [&](int n) { return reinterpret_cast<T*>(element0(call.outputs[n])); };
  const float* lse = reinterpret_cast<const float*>(element0(call.inputs[5]));
  StreamScratch delta(call.device, call.stream, static_cast<size_t>(g.B * g.Hq * g.L) * sizeof(float));
  if (!delta.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "attention backward: no device memory for its row sums");
  if (hal_status_t s = launch_kernel<attention_backward_dq<T, DPL>>(
          "attention backward (dq)", call.device, blocks(g.B * g.Hq, g.L), kThreads, shared_bytes(g.D), call.stream,
          in(0), in(1), in(2), in(3), in(4), lse, delta.as<float>(), outp(0), g);
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  return launch_kernel<attention_backward_dkdv<T, DPL>>(
      "attention backward (dk, dv)", call.device, blocks(g.B * g.Hk, g.S), kThreads, shared_bytes(g.D), call.stream,
      in(0), in(1), in(2), in(3), lse, delta.as<float>(), outp(1), outp(2), g);
}

template <class T>
hal_status_t dispatch_head_dim(const OpCall& call, const Geometry& g) {
  const bool fwd = call.op == HAL_OP_ATTENTION;
  if (g.D <= 32) return fwd ? forward<T, 1>(call, g) : backward<T, 1>(call, g);
  if (g.D <= 64) return fwd ? forward<T, 2>(call, g) : backward<T, 2>(call, g);
  if (g.D <= 128) return fwd ? forward<T, 4>(call, g) : backward<T, 4>(call, g);
  return fwd ? forward<T, 8>(call, g) : backward<T, 8>(call, g);
}

}  // namespace

hal_status_t launch_attention(const OpCall& call) {
  const bool fwd = call.op == HAL_OP_ATTENTION;
  if (fwd ? (call.num_inputs != 4 || call.num_outputs != 2) : (call.num_inputs != 7 || call.num_outputs != 3)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int first = fwd ? 0 : 1;  // the backward's inputs begin with dout
  const hal_tensor_t& bias = call.inputs[fwd ? 3 : 6];
  Geometry g;
  if (!read_geometry(call.inputs[first], call.inputs[first + 1], call.inputs[first + 2], bias, call, &g)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const DType dtype = dtype_of(call.inputs[first].dtype);
  const hal_tensor_t& lse = fwd ? call.outputs[1] : call.inputs[5];
  if (dtype_of(lse.dtype) != DType::F32 || lse.ndim != 3 || lse.shape[0] != g.B || lse.shape[1] != g.Hq ||
      lse.shape[2] != g.L || lse.strides[2] != 1 || lse.strides[1] != g.L || lse.strides[0] != g.Hq * g.L) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t& out = fwd ? call.outputs[0] : call.inputs[4];
  if (dtype_of(out.dtype) != dtype || !read_strides(out, g.B, g.Hq, g.L, g.D, g.o)) return HAL_STATUS_NOT_SUPPORTED;
  if (!fwd) {
    const hal_tensor_t &dout = call.inputs[0], &dq = call.outputs[0], &dk = call.outputs[1], &dv = call.outputs[2];
    for (const hal_tensor_t* t : {&dout, &dq, &dk, &dv}) {
      if (dtype_of(t->dtype) != dtype) return HAL_STATUS_NOT_SUPPORTED;
    }
    if (!read_strides(dout, g.B, g.Hq, g.L, g.D, g.dout) || !read_strides(dq, g.B, g.Hq, g.L, g.D, g.dq) ||
        !read_strides(dk, g.B, g.Hk, g.S, g.D, g.dk) || !read_strides(dv, g.B, g.Hk, g.S, g.D, g.dv)) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
  }
  if (g.B * g.Hq * g.L == 0) return HAL_STATUS_SUCCESS;
  if (!fwd && g.S == 0) return HAL_STATUS_NOT_SUPPORTED;  // dk, dv empty; dq zero: ATen's math path says so
  switch (dtype) {
    case DType::F32: return dispatch_head_dim<float>(call, g);
    case DType::F16: return dispatch_head_dim<__half>(call, g);
    case DType::BF16: return dispatch_head_dim<__nv_bfloat16>(call, g);
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace hal_gpu
