// GROUP_NORM, GROUP_NORM_BACKWARD over x [N, C, HxW] and RMS_NORM, RMS_NORM_BACKWARD over x [M, N], all
// contiguous: each normalizes rows of contiguous elements (a group's D = C / G channels of one sample, or
// one row of an RMS norm), a block per row.
//
// Group norm forward: the row's mean, then its biased variance around the mean (two passes over a row that
// stays in cache), y = (x - mean) * rstd * weight[c] + bias[c]. Backward, as ATen computes it:
//   ds[n, c] = sum over HxW of dy * x, db[n, c] = sum of dy   (a warp per plane)
//   dx = rstd * weight[c] * dy + c2 * x + c3, with c2 and c3 per (n, g) from the group's ds and db
//   dweight[c] = sum over n of (ds - db * mean) * rstd, dbias[c] = sum over n of db   (a thread per channel)
// RMS norm: rstd = 1 / sqrt(mean(x^2) + eps), y = x * rstd * weight; dx = rstd * (g - xhat * mean(g * xhat))
// with g = dy * weight, xhat = x * rstd; dweight sums dy * xhat over rows in two stages (fixed row chunks
// into scratch, then the chunks in order), as layer_norm.cu does. No floating-point atomics anywhere: results
// are deterministic.
#include <cstdint>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/norm_rows.cuh"
#include "kernels/op_call.h"
#include "kernels/param_vector.cuh"

namespace hal_gpu {
namespace {

// ---- Group norm ----------------------------------------------------------------------------------------
template <class T, class Acc>
__global__ void group_norm_forward(const T* x, Vec weight, Vec bias, T* y, Vec mean_out, Vec rstd_out, int64_t rows,
                                   int64_t G, int64_t D, int64_t HxW, Acc eps) {
  __shared__ Acc shared[32];
  const int64_t L = D * HxW;
  const bool affine = weight.base != nullptr || bias.base != nullptr;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * L;
    Acc mean, var;
    row_mean_var(xr, L, shared, mean, var);
    const Acc rstd = Acc(1) / sqrt(var + eps);
    T* yr = y + row * L;
    if (!affine) {
      for (int64_t j = threadIdx.x; j < L; j += blockDim.x) yr[j] = from_acc<T>((to_acc<Acc>(xr[j]) - mean) * rstd);
    } else {
      const int64_t c0 = (row % G) * D;
      for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
        const int64_t c = c0 + j / HxW;
        const Acc v = (to_acc<Acc>(xr[j]) - mean) * rstd;
        yr[j] = from_acc<T>(v * vec_at<Acc>(weight, c, Acc(1)) + vec_at<Acc>(bias, c, Acc(0)));
      }
    }
    if (threadIdx.x == 0) {
      vec_store<Acc>(mean_out, row, mean);
      vec_store<Acc>(rstd_out, row, rstd);
    }
  }
}

// ds and db per (n, c) plane of HxW elements: a warp per plane.
template <class T, class Acc>
__global__ void group_norm_plane_sums(const T* dy, const T* x, Acc* ds, Acc* db, int64_t planes, int64_t HxW) {
  const int64_t warps_per_block = blockDim.x >> 5;
  const int lane = threadIdx.x & 31;
  for (int64_t plane = blockIdx.x * warps_per_block + (threadIdx.x >> 5); plane < planes;
       plane += static_cast<int64_t>(gridDim.x) * warps_per_block) {
    const T* dyp = dy + plane * HxW;
    const T* xp = x + plane * HxW;
    Acc a = 0, b = 0;
    for (int64_t j = lane; j < HxW; j += 32) {
      const Acc g = to_acc<Acc>(dyp[j]);
      a += g * to_acc<Acc>(xp[j]);
      b += g;
    }
    a = warp_sum(a);
    b = warp_sum(b);
    if (lane == 0) {
      ds[plane] = a;
      db[plane] = b;
    }
  }
}

template <class T, class Acc>
__global__ void group_norm_backward_dx(const T* dy, const T* x, const Acc* ds, const Acc* db, Vec mean, Vec rstd,
                                       Vec weight, T* dx, int64_t rows, int64_t G, int64_t D, int64_t HxW) {
  __shared__ Acc shared[32];
  const int64_t L = D * HxW;
  const int64_t C = G * D;
  const Acc s = Acc(1) / static_cast<Acc>(L);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t n = row / G, c0 = (row % G) * D;
    Acc a = 0, b = 0;
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
      const Acc w = vec_at<Acc>(weight, c0 + d, Acc(1));
      a += ds[n * C + c0 + d] * w;
      b += db[n * C + c0 + d] * w;
    }
    const Acc ds_g = block_reduce<Acc, false>(a, shared);
    const Acc db_g = block_reduce<Acc, false>(b, shared);
    const Acc mu = vec_at<Acc>(mean, row, Acc(0)), rs = vec_at<Acc>(rstd, row, Acc(1));
    const Acc c2 = (db_g * mu - ds_g) * rs * rs * rs * s;
    const Acc c3 = -c2 * mu - db_g * rs * s;
    const T* dyr = dy + row * L;
    const T* xr = x + row * L;
    T* dxr = dx + row * L;
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
      const Acc c1 = rs * vec_at<Acc>(weight, c0 + j / HxW, Acc(1));
      dxr[j] = from_acc<T>(c1 * to_acc<Acc>(dyr[j]) + c2 * to_acc<Acc>(xr[j]) + c3);
    }
  }
}

template <class Acc>
__global__ void group_norm_backward_params(const Acc* ds, const Acc* db, Vec mean, Vec rstd, Vec dweight, Vec dbias,
                                           int64_t N, int64_t C, int64_t G, int64_t D) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < C;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t g = c / D;
    Acc w = 0, b = 0;
    for (int64_t n = 0; n < N; ++n) {
      const Acc dbv = db[n * C + c];
      w += (ds[n * C + c] - dbv * vec_at<Acc>(mean, n * G + g, Acc(0))) * vec_at<Acc>(rstd, n * G + g, Acc(1));
      b += dbv;
    }
    vec_store<Acc>(dweight, c, w);
    vec_store<Acc>(dbias, c, b);
  }
}

// ---- RMS norm --------------------------------------------------------------------------------------------
template <class T, class Acc>
__global__ void rms_norm_forward(const T* x, Vec weight, T* y, Acc* rstd_out, int64_t M, int64_t N, Acc eps) {
  __shared__ Acc shared[32];
  for (int64_t row = blockIdx.x; row < M; row += gridDim.x) {
    const T* xr = x + row * N;
    Acc q = 0;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      const Acc v = to_acc<Acc>(xr[j]);
      q += v * v;
    }
    const Acc rstd = Acc(1) / sqrt(block_reduce<Acc, false>(q, shared) / static_cast<Acc>(N) + eps);
    T* yr = y + row * N;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      yr[j] = from_acc<T>(to_acc<Acc>(xr[j]) * rstd * vec_at<Acc>(weight, j, Acc(1)));
    }
    if (threadIdx.x == 0 && rstd_out) rstd_out[row] = rstd;
  }
}

template <class T, class Acc>
__global__ void rms_norm_backward_dx(const T* dy, const T* x, const Acc* rstd, Vec weight, T* dx, int64_t M,
                                     int64_t N) {
  __shared__ Acc shared[32];
  for (int64_t row = blockIdx.x; row < M; row += gridDim.x) {
    const T* dyr = dy + row * N;
    const T* xr = x + row * N;
    const Acc rs = rstd[row];
    Acc sgx = 0;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      sgx += to_acc<Acc>(dyr[j]) * vec_at<Acc>(weight, j, Acc(1)) * to_acc<Acc>(xr[j]) * rs;
    }
    const Acc mean_gx = block_reduce<Acc, false>(sgx, shared) / static_cast<Acc>(N);
    T* dxr = dx + row * N;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      const Acc g = to_acc<Acc>(dyr[j]) * vec_at<Acc>(weight, j, Acc(1));
      const Acc xhat = to_acc<Acc>(xr[j]) * rs;
      dxr[j] = from_acc<T>(rs * (g - xhat * mean_gx));
    }
  }
}

// dweight, stage 1: block (32, 8) sums columns [32 * blockIdx.x, +32) over the rows of chunk blockIdx.y.
template <class T, class Acc>
__global__ void rms_norm_backward_partials(const T* dy, const T* x, const Acc* rstd, Acc* partial, int64_t M,
                                           int64_t N, int64_t rows_per_chunk) {
  __shared__ Acc tile[kRowLanes][kColumnTile + 1];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  const int64_t chunk = blockIdx.y;
  const int64_t row_begin = chunk * rows_per_chunk;
  const int64_t row_end = row_begin + rows_per_chunk < M ? row_begin + rows_per_chunk : M;
  Acc sw = 0;
  if (col < N) {
    for (int64_t row = row_begin + threadIdx.y; row < row_end; row += kRowLanes) {
      sw += to_acc<Acc>(dy[row * N + col]) * to_acc<Acc>(x[row * N + col]) * rstd[row];
    }
  }
  tile[threadIdx.y][threadIdx.x] = sw;
  __syncthreads();
  if (threadIdx.y == 0 && col < N) {
    Acc t = 0;
    for (int k = 0; k < kRowLanes; ++k) t += tile[k][threadIdx.x];  // fixed order: deterministic
    partial[chunk * N + col] = t;
  }
}

// Stage 2: column j sums its chunks in order.
template <class Acc>
__global__ void rms_norm_backward_columns(const Acc* partial, Vec dweight, int64_t chunks, int64_t N) {
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < N;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Acc s = 0;
    for (int64_t c = 0; c < chunks; ++c) s += partial[c * N + j];
    vec_store<Acc>(dweight, j, s);
  }
}

// ---- Host side ---------------------------------------------------------------------------------------------
bool is_dense(const hal_tensor_t& t, int ndim, const int64_t* shape, DType dtype) {
  if (t.data == nullptr || t.ndim != ndim || dtype_of(t.dtype) != dtype || !is_contiguous(t)) return false;
  for (int d = 0; d < ndim; ++d) {
    if (t.shape[d] != shape[d]) return false;
  }
  return true;
}

template <class T>
using AccOf = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
template <class T>
constexpr DType acc_dtype() {
  return std::is_same<T, double>::value ? DType::F64 : DType::F32;
}

template <class T>
hal_status_t group_norm(const OpCall& call, int64_t N, int64_t C, int64_t HxW, int64_t G) {
  using Acc = AccOf<T>;
  const int64_t D = C / G, rows = N * G;
  const hal_tensor_t* in = call.inputs;
  const hal_tensor_t* out = call.outputs;
  if (!is_param_vector(in[1], C) || !is_param_vector(in[2], C) || is_absent(out[1]) || is_absent(out[2]) ||
      !is_param_vector(out[1], rows) || !is_param_vector(out[2], rows)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm: weight/bias must be [C], mean/rstd [N * G]");
  }
  const Acc eps = static_cast<Acc>(scalar_as_double(op_scalar(call, 1)));
  return launch_kernel<group_norm_forward<T, Acc>>(
      "group_norm_forward", call.device, grid_for(rows, 1), threads_for_row(D * HxW), 0, call.stream,
      reinterpret_cast<const T*>(element0(in[0])), vec_of(in[1]), vec_of(in[2]), reinterpret_cast<T*>(element0(out[0])),
      vec_of(out[1]), vec_of(out[2]), rows, G, D, HxW, eps);
}

template <class T>
hal_status_t group_norm_backward(const OpCall& call, int64_t N, int64_t C, int64_t HxW, int64_t G) {
  using Acc = AccOf<T>;
  const int64_t D = C / G, rows = N * G;
  const hal_tensor_t* in = call.inputs;
  const hal_tensor_t& dx = call.outputs[0];
  const hal_tensor_t& dw = call.outputs[1];
  const hal_tensor_t& db = call.outputs[2];
  const int64_t shape[3] = {N, C, HxW};
  if (is_absent(in[2]) || is_absent(in[3]) || !is_param_vector(in[2], rows) || !is_param_vector(in[3], rows) ||
      !is_param_vector(in[4], C) || !is_param_vector(dw, C) || !is_param_vector(db, C) ||
      (!is_absent(dx) && !is_dense(dx, 3, shape, dtype_of(in[1].dtype)))) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm backward: unexpected operands");
  }
  if (is_absent(dx) && is_absent(dw) && is_absent(db)) return HAL_STATUS_SUCCESS;
  StreamScratch scratch(call.device, call.stream, static_cast<size_t>(N * C) * 2 * sizeof(Acc));
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "group_norm backward: no scratch memory");
  Acc* ds = scratch.as<Acc>();
  Acc* dbs = ds + N * C;
  const T* dy = reinterpret_cast<const T*>(element0(in[0]));
  const T* x = reinterpret_cast<const T*>(element0(in[1]));
  constexpr int kThreads = 256;
  if (hal_status_t s = launch_kernel<group_norm_plane_sums<T, Acc>>("group_norm_plane_sums", call.device,
                                                                    grid_for(N * C, kThreads / 32), kThreads, 0,
                                                                    call.stream, dy, x, ds, dbs, N * C, HxW);
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (!is_absent(dx)) {
    if (hal_status_t s = launch_kernel<group_norm_backward_dx<T, Acc>>(
            "group_norm_backward_dx", call.device, grid_for(rows, 1), threads_for_row(D * HxW), 0, call.stream, dy, x,
            ds, dbs, vec_of(in[2]), vec_of(in[3]), vec_of(in[4]), reinterpret_cast<T*>(element0(dx)), rows, G, D, HxW);
        s != HAL_STATUS_SUCCESS) {
      return s;
    }
  }
  if (is_absent(dw) && is_absent(db)) return HAL_STATUS_SUCCESS;
  return launch_kernel<group_norm_backward_params<Acc>>("group_norm_backward_params", call.device,
                                                        grid_for(C, kThreads), kThreads, 0, call.stream, ds, dbs,
                                                        vec_of(in[2]), vec_of(in[3]), vec_of(dw), vec_of(db), N, C, G,
                                                        D);
}

hal_status_t run_group_norm(const OpCall& call) {
  const bool is_backward = call.op == HAL_OP_GROUP_NORM_BACKWARD;
  if (is_backward ? !has_operands(call, 5, 3, 1) : !has_operands(call, 3, 3, 2)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm: unexpected operands");
  }
  const hal_tensor_t& x = call.inputs[is_backward ? 1 : 0];
  if (x.ndim != 3) return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm: x must be [N, C, HxW]");
  const int64_t N = x.shape[0], C = x.shape[1], HxW = x.shape[2];
  const int64_t G = scalar_as_int(op_scalar(call, 0));
  if (G <= 0 || C % G != 0) return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm: C must be a multiple of groups");
  if (N == 0 || C == 0) return HAL_STATUS_SUCCESS;
  if (HxW == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm: empty planes");
  const DType t = dtype_of(x.dtype);
  const int64_t shape[3] = {N, C, HxW};
  if (!is_dense(x, 3, shape, t) || !is_dense(is_backward ? call.inputs[0] : call.outputs[0], 3, shape, t)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm: x and y/dy must be contiguous [N, C, HxW] of one dtype");
  }
  switch (t) {
    case DType::F32: return is_backward ? group_norm_backward<float>(call, N, C, HxW, G) : group_norm<float>(call, N, C, HxW, G);
    case DType::F16: return is_backward ? group_norm_backward<__half>(call, N, C, HxW, G) : group_norm<__half>(call, N, C, HxW, G);
    case DType::BF16:
      return is_backward ? group_norm_backward<__nv_bfloat16>(call, N, C, HxW, G)
                         : group_norm<__nv_bfloat16>(call, N, C, HxW, G);
    case DType::F64: return is_backward ? group_norm_backward<double>(call, N, C, HxW, G) : group_norm<double>(call, N, C, HxW, G);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm: unsupported dtype");
  }
}

template <class T>
hal_status_t rms_norm(const OpCall& call, int64_t M, int64_t N) {
  using Acc = AccOf<T>;
  const hal_tensor_t* out = call.outputs;
  if (!is_param_vector(call.inputs[1], N) || (!is_absent(out[1]) && !is_acc_vector(out[1], M, acc_dtype<T>()))) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm: weight must be [N], rstd [M] of the accumulation type");
  }
  Acc* rstd = is_absent(out[1]) ? nullptr : reinterpret_cast<Acc*>(element0(out[1]));
  const Acc eps = static_cast<Acc>(scalar_as_double(op_scalar(call, 0)));
  return launch_kernel<rms_norm_forward<T, Acc>>("rms_norm_forward", call.device, grid_for(M, 1), threads_for_row(N), 0,
                                                 call.stream, reinterpret_cast<const T*>(element0(call.inputs[0])),
                                                 vec_of(call.inputs[1]), reinterpret_cast<T*>(element0(out[0])), rstd,
                                                 M, N, eps);
}

template <class T>
hal_status_t rms_norm_backward(const OpCall& call, int64_t M, int64_t N) {
  using Acc = AccOf<T>;
  const hal_tensor_t* in = call.inputs;
  const hal_tensor_t& dx = call.outputs[0];
  const hal_tensor_t& dw = call.outputs[1];
  const int64_t shape[2] = {M, N};
  if (!is_acc_vector(in[2], M, acc_dtype<T>()) || !is_param_vector(in[3], N) || !is_param_vector(dw, N) ||
      (!is_absent(dx) && !is_dense(dx, 2, shape, dtype_of(in[1].dtype)))) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm backward: unexpected operands");
  }
  const T* dy = reinterpret_cast<const T*>(element0(in[0]));
  const T* x = reinterpret_cast<const T*>(element0(in[1]));
  const Acc* rstd = reinterpret_cast<const Acc*>(element0(in[2]));
  if (!is_absent(dx)) {
    if (hal_status_t s = launch_kernel<rms_norm_backward_dx<T, Acc>>(
            "rms_norm_backward_dx", call.device, grid_for(M, 1), threads_for_row(N), 0, call.stream, dy, x, rstd,
            vec_of(in[3]), reinterpret_cast<T*>(element0(dx)), M, N);
        s != HAL_STATUS_SUCCESS) {
      return s;
    }
  }
  if (is_absent(dw)) return HAL_STATUS_SUCCESS;
  const auto [rows_per_chunk, chunks, column_tiles] = column_chunks(M, N);
  if (column_tiles > 0x7fffffffLL) return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm backward: N too large");
  StreamScratch scratch(call.device, call.stream, static_cast<size_t>(chunks * N) * sizeof(Acc));
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "rms_norm backward: no scratch memory");
  Acc* partial = scratch.as<Acc>();
  const dim3 grid(static_cast<unsigned>(column_tiles), static_cast<unsigned>(chunks));
  if (hal_status_t s = launch_kernel<rms_norm_backward_partials<T, Acc>>(
          "rms_norm_backward_partials", call.device, grid, dim3(kColumnTile, kRowLanes), 0, call.stream, dy, x, rstd,
          partial, M, N, rows_per_chunk);
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  return launch_kernel<rms_norm_backward_columns<Acc>>("rms_norm_backward_columns", call.device, grid_for(N, 256), 256,
                                                       0, call.stream, partial, vec_of(dw), chunks, N);
}

hal_status_t run_rms_norm(const OpCall& call) {
  const bool is_backward = call.op == HAL_OP_RMS_NORM_BACKWARD;
  if (is_backward ? !has_operands(call, 4, 2) : !has_operands(call, 2, 2, 1)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm: unexpected operands");
  }
  const hal_tensor_t& x = call.inputs[is_backward ? 1 : 0];
  if (x.ndim != 2) return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm: x must be [M, N]");
  const int64_t M = x.shape[0], N = x.shape[1];
  if (M == 0) return HAL_STATUS_SUCCESS;
  if (N == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm: empty rows");
  const DType t = dtype_of(x.dtype);
  const int64_t shape[2] = {M, N};
  if (!is_dense(x, 2, shape, t) || !is_dense(is_backward ? call.inputs[0] : call.outputs[0], 2, shape, t)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm: x and y/dy must be contiguous [M, N] of one dtype");
  }
  switch (t) {
    case DType::F32: return is_backward ? rms_norm_backward<float>(call, M, N) : rms_norm<float>(call, M, N);
    case DType::F16: return is_backward ? rms_norm_backward<__half>(call, M, N) : rms_norm<__half>(call, M, N);
    case DType::BF16:
      return is_backward ? rms_norm_backward<__nv_bfloat16>(call, M, N) : rms_norm<__nv_bfloat16>(call, M, N);
    case DType::F64: return is_backward ? rms_norm_backward<double>(call, M, N) : rms_norm<double>(call, M, N);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "rms_norm: unsupported dtype");
  }
}

}  // namespace

hal_status_t launch_group_norm(const OpCall& call) {
  switch (call.op) {
    case HAL_OP_GROUP_NORM:
    case HAL_OP_GROUP_NORM_BACKWARD:
      return run_group_norm(call);
    case HAL_OP_RMS_NORM:
    case HAL_OP_RMS_NORM_BACKWARD:
      return run_rms_norm(call);
    default:
      return fail(HAL_STATUS_NOT_SUPPORTED, "group_norm family: unknown op");
  }
}

}  // namespace hal_gpu
