// Plans of the layer norm module (kernels/layer_norm.cl): LAYER_NORM and LAYER_NORM_BACKWARD over contiguous
// floating rows x [M, N] (float64: float64.cl's kernels), dense parameters of x's dtype and float32 statistics
// (float64 for float64 rows; the layouts the glue passes), each of weight, bias, dx, dweight and dbias possibly
// absent.
#include "kernels/norm_rows.cuh"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

constexpr size_t kMaxRowGroup = 256;  // the widest work-group per row (within every device's limit)

using hal_gpu::DType;

// The kernels of one storage type (x's dtype).
struct Kernels {
  const char* forward;
  const char* dx;
  const char* columns;
};
bool kernels_for(DType d, Kernels* k) {
  static constexpr Kernels kByType[4] = {
      {"layer_norm_forward_f32", "layer_norm_backward_dx_f32", "layer_norm_backward_columns_f32"},
      {"layer_norm_forward_f16", "layer_norm_backward_dx_f16", "layer_norm_backward_columns_f16"},
      {"layer_norm_forward_bf16", "layer_norm_backward_dx_bf16", "layer_norm_backward_columns_bf16"},
      {"layer_norm_forward_f64", "layer_norm_backward_dx_f64", "layer_norm_backward_columns_f64"}};
  const int type = floating_index(d);
  if (type < 0) return false;
  *k = kByType[type];
  return true;
}

// The statistics' dtype (mean, rstd), as ATen's: float64 for float64 rows, float32 otherwise.
DType stats_of(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }

bool is_rows(const hal_tensor_t& t, int64_t M, int64_t N, DType d) {
  return t.data != nullptr && hal_gpu::dtype_of(t.dtype) == d && t.ndim == 2 && t.shape[0] == M && t.shape[1] == N &&
         hal_gpu::is_contiguous(t);
}
// A [n] parameter of dtype d, or the statistics (d = stats_of(x's dtype)).
bool is_vector(const hal_tensor_t& t, int64_t n, DType d) {
  return t.data != nullptr && hal_gpu::dtype_of(t.dtype) == d && t.ndim == 1 && t.shape[0] == n &&
         (t.strides[0] == 1 || n == 1);
}
bool is_vector_or_absent(const hal_tensor_t& t, int64_t n, DType d) {
  return hal_gpu::is_absent(t) || is_vector(t, n, d);
}
int32_t present(const hal_tensor_t& t) { return hal_gpu::is_absent(t) ? 0 : 1; }

// A work-group per row, as wide as the row up to kMaxRowGroup (the block sums take any width).
Launch row_launch(DType d, const char* kernel, int64_t M, int64_t N) {
  Launch l = launch_of(module_for(d, Module::LayerNorm), kernel);
  const size_t group = pow2_at_least(N, kMaxRowGroup);
  l.global[0] = static_cast<size_t>(M) * group;
  l.local[0] = group;
  return l;
}

hal_status_t forward(const Kernels& kernels, DType d, const hal_tensor_t* inputs, const hal_tensor_t* outputs,
                     const hal_scalar_t* scalars, int64_t M, int64_t N, std::vector<Launch>* launches) {
  const DType stats = stats_of(d);
  const hal_tensor_t &weight = inputs[1], &bias = inputs[2];
  if (!is_vector_or_absent(weight, N, d) || !is_vector_or_absent(bias, N, d) || !is_rows(outputs[0], M, N, d) ||
      !is_vector(outputs[1], M, stats) || !is_vector(outputs[2], M, stats)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  Launch l = row_launch(d, kernels.forward, M, N);
  const void* x0 = hal_gpu::element0(inputs[0]);
  add_pointer(&l, inputs[0], nullptr);
  add_pointer(&l, weight, x0);  // an absent parameter's stand-in is never read
  add_pointer(&l, bias, x0);
  for (int k = 0; k < 3; ++k) add_pointer(&l, outputs[k], nullptr);
  l.args.push_back(KernelArg::of_value(M));
  l.args.push_back(KernelArg::of_value(N));
  const double eps = scalar_as_double(scalars[0]);  // in the accumulation type, as the kernel takes it
  if (d == DType::F64) l.args.push_back(KernelArg::of_value(eps));
  else l.args.push_back(KernelArg::of_value(static_cast<float>(eps)));
  l.args.push_back(KernelArg::of_value(present(weight)));
  l.args.push_back(KernelArg::of_value(present(bias)));
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

hal_status_t backward(const Kernels& kernels, DType d, const hal_tensor_t* inputs, const hal_tensor_t* outputs,
                      int64_t M, int64_t N, std::vector<Launch>* launches) {
  const DType stats = stats_of(d);
  const hal_tensor_t &dy = inputs[0], &x = inputs[1], &mean = inputs[2], &rstd = inputs[3], &weight = inputs[4];
  const hal_tensor_t &dx = outputs[0], &dweight = outputs[1], &dbias = outputs[2];
  if (!is_rows(dy, M, N, d) || !is_vector(mean, M, stats) || !is_vector(rstd, M, stats) ||
      !is_vector_or_absent(weight, N, d) || !(hal_gpu::is_absent(dx) || is_rows(dx, M, N, d)) ||
      !is_vector_or_absent(dweight, N, d) || !is_vector_or_absent(dbias, N, d)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const void* x0 = hal_gpu::element0(x);
  if (!hal_gpu::is_absent(dx)) {
    Launch l = row_launch(d, kernels.dx, M, N);
    for (int k = 0; k < 4; ++k) add_pointer(&l, inputs[k], nullptr);
    add_pointer(&l, weight, x0);
    add_pointer(&l, dx, nullptr);
    l.args.push_back(KernelArg::of_value(M));
    l.args.push_back(KernelArg::of_value(N));
    l.args.push_back(KernelArg::of_value(present(weight)));
    launches->push_back(l);
  }
  if (hal_gpu::is_absent(dweight) && hal_gpu::is_absent(dbias)) return HAL_STATUS_SUCCESS;
  // A (kColumnTile, kRowLanes) work-group per column tile, summing all M rows (one chunk) in a fixed order.
  Launch l = launch_of(module_for(d, Module::LayerNorm), kernels.columns);
  for (int k = 0; k < 4; ++k) add_pointer(&l, inputs[k], nullptr);
  add_pointer(&l, dweight, x0);  // stand-ins, never written, for an absent output
  add_pointer(&l, dbias, x0);
  l.args.push_back(KernelArg::of_value(M));
  l.args.push_back(KernelArg::of_value(N));
  l.args.push_back(KernelArg::of_value(present(dweight)));
  l.args.push_back(KernelArg::of_value(present(dbias)));
  l.dims = 2;
  l.global[0] = round_up(static_cast<size_t>(N), hal_gpu::kColumnTile);
  l.global[1] = hal_gpu::kRowLanes;
  l.local[0] = hal_gpu::kColumnTile;
  l.local[1] = hal_gpu::kRowLanes;
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace

hal_status_t plan_layer_norm(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                             int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                             std::vector<Launch>* launches) {
  const bool is_backward = op == HAL_OP_LAYER_NORM_BACKWARD;
  if (is_backward ? num_inputs != 5 || num_outputs != 3
                  : num_inputs != 3 || num_outputs != 3 || scalars == nullptr || num_scalars < 1) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t& x = inputs[is_backward ? 1 : 0];
  const DType d = hal_gpu::dtype_of(x.dtype);
  Kernels kernels;
  if (x.data == nullptr || !kernels_for(d, &kernels) || x.ndim != 2 || !hal_gpu::is_contiguous(x)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t M = x.shape[0], N = x.shape[1];
  if (M == 0) return HAL_STATUS_SUCCESS;
  if (N == 0) return HAL_STATUS_NOT_SUPPORTED;
  return is_backward ? backward(kernels, d, inputs, outputs, M, N, launches)
                     : forward(kernels, d, inputs, outputs, scalars, M, N, launches);
}

}  // namespace hal_spirv::detail
