// LAYER_NORM and LAYER_NORM_BACKWARD over x [M, N] (contiguous), normalizing each row: the entry points around
// the family's kernel bodies (layer_norm_rows.cuh, which the SPIR-V kernels compile too) and their launches.
//
// Forward and dx: a block per row. dweight and dbias (sums over the M rows) use a two-stage column reduction:
// fixed row chunks summed into a float scratch buffer, then the chunks summed in order, so results do not depend
// on scheduling (no floating-point atomics).
//
// x, dy and y share one storage type (f32, f16, bf16, f64); weight, bias, dweight, dbias may be any
// floating type (read and written through load_as/store_from); mean and rstd are float32, or float64 for
// f64 x. Accumulation is float32 (float64 for f64).
#include <cstdint>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/layer_norm_rows.cuh"
#include "kernels/norm_rows.cuh"
#include "kernels/param_vector.cuh"

namespace hal_gpu {
namespace {

template <class T, class Acc>
__global__ void layer_norm_forward(const T* x, Vec weight, Vec bias, T* y, Acc* mean_out, Acc* rstd_out, int64_t M,
                                   int64_t N, Acc eps) {
  __shared__ Acc shared[32];
  layer_norm_forward_rows(
      x, [=](int64_t j) { return vec_at<Acc>(weight, j, Acc(1)); },
      [=](int64_t j) { return vec_at<Acc>(bias, j, Acc(0)); }, y, mean_out, rstd_out, M, N, eps, shared);
}

template <class T, class Acc>
__global__ void layer_norm_backward_dx(const T* dy, const T* x, const Acc* mean, const Acc* rstd, Vec weight,
                                       Operand dx, int64_t M, int64_t N) {
  __shared__ Acc shared[32];
  layer_norm_backward_dx_rows(
      dy, x, mean, rstd, [=](int64_t j) { return vec_at<Acc>(weight, j, Acc(1)); },
      [=](int64_t row, int64_t j, Acc v) {
        const int64_t offset = row * dx.strides[0] + j * dx.strides[1];
        store_from<Acc>(dx.base + offset * dx.elem_size, dx.dtype, v);
      },
      M, N, shared);
}

// Stage 1 of dweight/dbias: the sums of each chunk of rows into partial[chunk][column] (two buffers: dweight's
// and dbias's).
template <class T, class Acc>
__global__ void layer_norm_backward_partials(const T* dy, const T* x, const Acc* mean, const Acc* rstd,
                                             Acc* partial_w, Acc* partial_b, int64_t M, int64_t N,
                                             int64_t rows_per_chunk) {
  __shared__ Acc tile_w[kRowLanes][kColumnTile + 1];
  __shared__ Acc tile_b[kRowLanes][kColumnTile + 1];
  layer_norm_backward_column_sums(dy, x, mean, rstd, partial_w, partial_b, M, N, rows_per_chunk, tile_w, tile_b);
}

// Stage 2: column j sums its chunks in order and stores in the output's dtype.
template <class Acc>
__global__ void layer_norm_backward_columns(const Acc* partial_w, const Acc* partial_b, Vec dweight_vec,
                                           Vec dbias_vec, int64_t chunks, int64_t N) {
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < N;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (partial_w && dweight_vec.base) {
      Acc s = 0;
      for (int64_t c = 0; c < chunks; ++c) s += partial_w[c * N + j];
      store_from<Acc>(const_cast<char*>(dweight_vec.base) + j * dweight_vec.stride * dweight_vec.elem_size,
                      dweight_vec.dtype, s);
    }
    if (partial_b && dbias_vec.base) {
      Acc s = 0;
      for (int64_t c = 0; c < chunks; ++c) s += partial_b[c * N + j];
      store_from<Acc>(const_cast<char*>(dbias_vec.base) + j * dbias_vec.stride * dbias_vec.elem_size,
                      dbias_vec.dtype, s);
    }
  }
}

bool is_rows(const hal_tensor_t& t, int64_t M, int64_t N) {
  return t.data != nullptr && t.ndim == 2 && t.shape[0] == M && t.shape[1] == N && is_contiguous(t);
}

template <class T>
hal_status_t forward(const OpCall& call, int64_t M, int64_t N) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const hal_tensor_t* out = call.outputs;
  const DType acc = std::is_same<Acc, double>::value ? DType::F64 : DType::F32;
  for (int k = 1; k < 3; ++k) {
    if (k < call.num_outputs && !is_absent(out[k]) && !is_acc_vector(out[k], M, acc)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: mean/rstd must be [M] of the accumulation type");
    }
  }
  Acc* mean = call.num_outputs > 1 && !is_absent(out[1]) ? reinterpret_cast<Acc*>(element0(out[1])) : nullptr;
  Acc* rstd = call.num_outputs > 2 && !is_absent(out[2]) ? reinterpret_cast<Acc*>(element0(out[2])) : nullptr;
  const Acc eps = static_cast<Acc>(scalar_as_double(op_scalar(call, 0)));
  return launch_kernel<layer_norm_forward<T, Acc>>(
      "layer_norm_forward", call.device, grid_for(M, 1), threads_for_row(N), 0, call.stream,
      reinterpret_cast<const T*>(element0(call.inputs[0])), vec_of(call.inputs[1]), vec_of(call.inputs[2]),
      reinterpret_cast<T*>(element0(out[0])), mean, rstd, M, N, eps);
}

template <class T>
hal_status_t backward(const OpCall& call, int64_t M, int64_t N) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const DType acc = std::is_same<Acc, double>::value ? DType::F64 : DType::F32;
  const hal_tensor_t& dx = call.outputs[0];
  const hal_tensor_t& dw = call.outputs[1];
  const hal_tensor_t& db = call.outputs[2];
  if (!is_acc_vector(call.inputs[2], M, acc) || !is_acc_vector(call.inputs[3], M, acc)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm backward: mean/rstd must be [M] of the accumulation type");
  }
  if (!is_absent(dx) && (dx.data == nullptr || dx.ndim != 2 || dx.shape[0] != M || dx.shape[1] != N)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm backward: dx must be [M, N]");
  }
  if (!is_param_vector(dw, N) || !is_param_vector(db, N)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm backward: dweight/dbias must be [N] floating");
  }
  const T* dy = reinterpret_cast<const T*>(element0(call.inputs[0]));
  const T* x = reinterpret_cast<const T*>(element0(call.inputs[1]));
  const Acc* mean = reinterpret_cast<const Acc*>(element0(call.inputs[2]));
  const Acc* rstd = reinterpret_cast<const Acc*>(element0(call.inputs[3]));
  if (!is_absent(dx)) {
    if (hal_status_t s = launch_kernel<layer_norm_backward_dx<T, Acc>>(
            "layer_norm_backward_dx", call.device, grid_for(M, 1), threads_for_row(N), 0, call.stream, dy, x, mean,
            rstd, vec_of(call.inputs[4]), operand_of(dx), M, N);
        s != HAL_STATUS_SUCCESS) {
      return s;
    }
  }
  const bool want_w = !is_absent(dw), want_b = !is_absent(db);
  if (!want_w && !want_b) return HAL_STATUS_SUCCESS;
  const auto [rows_per_chunk, chunks, column_tiles] = column_chunks(M, N);
  if (column_tiles > 0x7fffffffLL) return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm backward: N too large");
  const size_t partials_bytes = static_cast<size_t>(chunks * N) * sizeof(Acc);
  StreamScratch scratch(call.device, call.stream, partials_bytes * ((want_w ? 1 : 0) + (want_b ? 1 : 0)));
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "layer_norm backward: no scratch memory");
  Acc* partial_w = want_w ? scratch.as<Acc>() : nullptr;
  Acc* partial_b = want_b ? scratch.as<Acc>() + (want_w ? chunks * N : 0) : nullptr;
  const dim3 grid(static_cast<unsigned>(column_tiles), static_cast<unsigned>(chunks));
  if (hal_status_t s = launch_kernel<layer_norm_backward_partials<T, Acc>>(
          "layer_norm_backward_partials", call.device, grid, dim3(kColumnTile, kRowLanes), 0, call.stream, dy, x, mean,
          rstd, partial_w, partial_b, M, N, rows_per_chunk);
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  return launch_kernel<layer_norm_backward_columns<Acc>>("layer_norm_backward_columns", call.device, grid_for(N, 256),
                                                         256, 0, call.stream, partial_w, partial_b, vec_of(dw),
                                                         vec_of(db), chunks, N);
}

}  // namespace

hal_status_t launch_layer_norm(const OpCall& call) {
  const bool is_backward = call.op == HAL_OP_LAYER_NORM_BACKWARD;
  if (call.op != HAL_OP_LAYER_NORM && !is_backward) return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: unknown op");
  if (is_backward ? !has_operands(call, 5, 3) : !has_operands(call, 3, 3, 1)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: unexpected operands");
  }
  const hal_tensor_t& x = call.inputs[is_backward ? 1 : 0];
  if (x.ndim != 2) return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: x must be [M, N]");
  const int64_t M = x.shape[0], N = x.shape[1];
  if (M == 0) return HAL_STATUS_SUCCESS;
  if (N == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: empty rows");
  const DType t = dtype_of(x.dtype);
  if (!is_rows(x, M, N)) return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: x must be contiguous");
  if (is_backward) {
    if (!is_rows(call.inputs[0], M, N) || dtype_of(call.inputs[0].dtype) != t || !is_param_vector(call.inputs[4], N)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm backward: dy must match x; weight must be [N]");
    }
  } else {
    if (!is_rows(call.outputs[0], M, N) || dtype_of(call.outputs[0].dtype) != t || !is_param_vector(call.inputs[1], N) ||
        !is_param_vector(call.inputs[2], N)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: y must match x; weight and bias must be [N]");
    }
  }
  switch (t) {
    case DType::F32: return is_backward ? backward<float>(call, M, N) : forward<float>(call, M, N);
    case DType::F16: return is_backward ? backward<__half>(call, M, N) : forward<__half>(call, M, N);
    case DType::BF16: return is_backward ? backward<__nv_bfloat16>(call, M, N) : forward<__nv_bfloat16>(call, M, N);
    case DType::F64: return is_backward ? backward<double>(call, M, N) : forward<double>(call, M, N);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "layer_norm: unsupported dtype");
  }
}

}  // namespace hal_gpu
