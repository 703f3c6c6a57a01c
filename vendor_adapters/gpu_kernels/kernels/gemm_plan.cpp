#include "kernels/gemm_plan.h"

#include <algorithm>
#include <climits>

namespace hal_gpu {
namespace {

// One operand as [batch, rows, cols] with element strides (a 2-D tensor has batch 1, stride 0). A 4-D
// operand [B1, B2, rows, cols] is a batch of B1 * B2: with one batch stride where its two batch dims merge,
// else as groups of B2 (group_size) at group_stride.
struct Matrix {
  const hal_tensor_t* t = nullptr;
  int64_t batch = 1, rows = 0, cols = 0;
  int64_t batch_stride = 0, row_stride = 0, col_stride = 0;
  int64_t group_size = 0, group_stride = 0;  // 4-D: B2 and the first dim's stride (group_size 0 where they merge)
};

bool as_matrix(const hal_tensor_t& t, Matrix* m) {
  if (t.ndim < 2 || t.ndim > 4) return false;
  const int b = t.ndim - 2;
  int64_t elements = 1;
  for (int i = 0; i < t.ndim; ++i) elements *= t.shape[i];
  // A matrix without elements may have no memory at all (data NULL): a K == 0 product reads neither a nor b.
  if (t.data == nullptr && elements != 0) return false;
  m->t = &t;
  m->batch = b == 2 ? t.shape[0] * t.shape[1] : b ? t.shape[0] : 1;
  m->batch_stride = b ? t.strides[b - 1] : 0;
  if (b == 2) {
    const int64_t groups = t.shape[0], per_group = t.shape[1];
    if (per_group == 1) {
      m->batch_stride = t.strides[0];
    } else if (groups > 1 && t.strides[0] != per_group * t.strides[1]) {
      m->group_size = per_group;
      m->group_stride = t.strides[0];
    }
  }
  m->rows = t.shape[b];
  m->cols = t.shape[b + 1];
  m->row_stride = t.strides[b];
  m->col_stride = t.strides[b + 1];
  return true;
}

// How cuBLAS can address a matrix: unit stride along its columns (row-major, leading dimension = row
// stride) or along its rows (column-major, leading dimension = column stride). The stride of a dimension of
// size 1 is never used, so such a dimension counts as unit-stride and gets the smallest valid leading
// dimension. Broadcast (stride 0) or overlapping matrices have no layout: NOT_SUPPORTED.
struct Layout {
  bool row_major = true;
  int64_t ld = 0;
};

bool layout_of(const Matrix& m, Layout* out) {
  const int64_t min_ld_row_major = std::max<int64_t>(m.cols, 1), min_ld_col_major = std::max<int64_t>(m.rows, 1);
  if (m.cols == 1 || m.col_stride == 1) {
    const int64_t ld = m.rows == 1 ? min_ld_row_major : m.row_stride;
    if (ld >= min_ld_row_major) {
      *out = {true, ld};
      return true;
    }
  }
  if (m.rows == 1 || m.row_stride == 1) {
    const int64_t ld = m.cols == 1 ? min_ld_col_major : m.col_stride;
    if (ld >= min_ld_col_major) {
      *out = {false, ld};
      return true;
    }
  }
  return false;
}

bool gemm_type_of(hal_dtype_t d, GemmType* type) {
  if (d.lanes != 1) return false;
  if (d.code == HAL_DTYPE_FLOAT && d.bits == 16) *type = GemmType::F16;
  else if (d.code == HAL_DTYPE_BFLOAT && d.bits == 16) *type = GemmType::BF16;
  else if (d.code == HAL_DTYPE_FLOAT && d.bits == 32) *type = GemmType::F32;
  else if (d.code == HAL_DTYPE_FLOAT && d.bits == 64) *type = GemmType::F64;
  else return false;
  return true;
}

bool same_dtype(hal_dtype_t x, hal_dtype_t y) { return x.code == y.code && x.bits == y.bits && x.lanes == y.lanes; }

double scalar_value(const hal_scalar_t& s) {
  switch (s.kind) {
    case 1: return static_cast<double>(s.value.i);
    case 2: return s.value.b ? 1.0 : 0.0;
    default: return s.value.f;
  }
}

bool same_view(const hal_tensor_t& x, const hal_tensor_t& y) {
  if (x.data != y.data || x.byte_offset != y.byte_offset || x.ndim != y.ndim) return false;
  for (int i = 0; i < x.ndim; ++i) {
    if (x.shape[i] != y.shape[i] || x.strides[i] != y.strides[i]) return false;
  }
  return true;
}

// The batch stride an operand uses in a batch of `batch`: its own, or 0 to broadcast a single matrix.
bool batch_stride_for(const Matrix& m, int64_t batch, int64_t* stride) {
  if (m.batch == batch && batch != 1) {
    *stride = m.batch_stride;
    return true;
  }
  if (m.batch == 1) {
    *stride = 0;
    return true;
  }
  return false;
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

char* element0(const hal_tensor_t& t) { return static_cast<char*>(t.data) + t.byte_offset; }

// cuBLASLt's BIAS epilogue adds a packed vector with one value per row of cuBLAS's column-major D to every
// column of D. A row-major out[M, N] is computed as the column-major out^T (N x M), whose rows are out's
// columns: so a c broadcast over out's rows (strides [0, 1]: one value per column n, addmm's 1-D bias
// expanded to out's shape) is exactly that vector, of length N = cuBLAS's m. With beta == 1 the epilogue
// then gives out = alpha a b + c, rounded once from FP32 like the two-kernel path. Taken under the
// conditions ATen's addmm takes cuBLASLt's epilogue on CUDA (gemm_and_bias): beta 1, a 2-D contiguous
// output, float, half or bfloat16 (FP64 stays on the cuBLAS path), and K, N > 1 (cuBLASLt's heuristic
// rejects a b with a single row or column).
bool is_bias_epilogue(const GemmPlan& plan, const Matrix& out, bool out_row_major, int64_t ld_out) {
  const hal_tensor_t* c = plan.c;
  if (!c || plan.c_is_out || plan.beta != 1.0 || plan.batch != 1 || out.t->ndim != 2) return false;
  if (plan.type == GemmType::F64 || plan.k <= 1 || out.cols <= 1) return false;
  const bool contiguous_out = out_row_major && ld_out == out.cols;
  const bool row_broadcast = (c->strides[0] == 0 || out.rows == 1) && c->strides[1] == 1;
  return contiguous_out && row_broadcast;
}

}  // namespace

hal_status_t plan_gemm(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                       int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, GemmPlan* plan,
                       std::string* why) {
  *plan = GemmPlan{};
  const bool gemm = op == HAL_OP_GEMM;
  if (num_outputs != 1 || num_inputs != (gemm ? 3 : 2) || (gemm && num_scalars < 2)) {
    *why = "expects inputs a, b" + std::string(gemm ? ", c and scalars alpha, beta" : "") + " and one output";
    return HAL_STATUS_INVALID_ARGUMENT;
  }
  Matrix a, b, out;
  if (!as_matrix(inputs[0], &a) || !as_matrix(inputs[1], &b) || !as_matrix(outputs[0], &out)) {
    *why = "takes 2-D, 3-D or 4-D tensors only";
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t* c = nullptr;
  if (gemm && !(inputs[2].data == nullptr && inputs[2].ndim < 0)) {  // c is not ABSENT
    c = &inputs[2];
    if (c->data == nullptr || c->ndim != outputs[0].ndim) {
      *why = "c must be ABSENT or a tensor of the output's shape";
      return HAL_STATUS_NOT_SUPPORTED;
    }
  }
  if (!gemm_type_of(outputs[0].dtype, &plan->type) || !same_dtype(inputs[0].dtype, outputs[0].dtype) ||
      !same_dtype(inputs[1].dtype, outputs[0].dtype) || (c && !same_dtype(c->dtype, outputs[0].dtype))) {
    *why = "takes float16, bfloat16, float32 or float64 operands, all of one dtype";
    return HAL_STATUS_NOT_SUPPORTED;
  }

  const int64_t batch = out.batch, M = out.rows, N = out.cols, K = a.cols;
  const bool batched = outputs[0].ndim == 3;
  const bool four_d = outputs[0].ndim == 4;
  if (a.rows != M || b.rows != K || b.cols != N || (!batched && !four_d && (a.t->ndim == 3 || b.t->ndim == 3))) {
    *why = "shapes do not match: a [B,M,K] or [M,K], b [B,K,N] or [K,N], out [B,M,N] or [M,N]";
    return HAL_STATUS_INVALID_ARGUMENT;
  }
  // 4-D: no broadcasting; a, b and out share their two batch dims.
  if ((four_d || a.t->ndim == 4 || b.t->ndim == 4) &&
      (a.t->ndim != 4 || b.t->ndim != 4 || !four_d || a.t->shape[0] != out.t->shape[0] ||
       a.t->shape[1] != out.t->shape[1] || b.t->shape[0] != out.t->shape[0] || b.t->shape[1] != out.t->shape[1])) {
    *why = "4-D operands must all be 4-D with the same two batch dims: a [B1,B2,M,K], b [B1,B2,K,N], out [B1,B2,M,N]";
    return HAL_STATUS_INVALID_ARGUMENT;
  }
  if (c) {
    for (int i = 0; i < c->ndim; ++i) {
      if (c->shape[i] != outputs[0].shape[i]) {
        *why = "c's shape is not the output's";
        return HAL_STATUS_INVALID_ARGUMENT;
      }
    }
  }
  int64_t batch_stride_a = 0, batch_stride_b = 0;
  if (!batch_stride_for(a, batch, &batch_stride_a) || !batch_stride_for(b, batch, &batch_stride_b)) {
    *why = "the batch sizes of a, b and out differ";
    return HAL_STATUS_INVALID_ARGUMENT;
  }

  plan->alpha = gemm ? scalar_value(scalars[0]) : 1.0;
  plan->beta = gemm ? scalar_value(scalars[1]) : 0.0;
  // beta == 0 ignores c entirely (NaN and Inf in c do not propagate), as BLAS and PyTorch define it.
  if (!c || plan->beta == 0.0) {
    c = nullptr;
    plan->beta = 0.0;
  }
  plan->c = c;
  plan->c_is_out = c && same_view(*c, outputs[0]);
  plan->batch = batch;
  plan->k = K;
  plan->empty = batch == 0 || M == 0 || N == 0;
  if (plan->empty || K == 0) return HAL_STATUS_SUCCESS;  // no cuBLAS call: the rest is not needed

  Layout la, lb, lo;
  if (!layout_of(a, &la) || !layout_of(b, &lb) || !layout_of(out, &lo) || (batch > 1 && out.batch_stride == 0) ||
      (out.group_size && out.group_stride == 0)) {
    *why = "needs each matrix to have unit stride in one of its last two dimensions, without overlap";
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // cuBLAS is column-major. A row-major output is a column-major out^T, so cuBLAS computes
  // out^T = b^T a^T with b as its first operand; a column-major output is computed as a b directly. An
  // operand whose layout matches the output's is used as stored (op N), otherwise transposed (op T).
  const bool via_transpose = lo.row_major;
  const Matrix& first = via_transpose ? b : a;
  const Matrix& second = via_transpose ? a : b;
  const Layout& lf = via_transpose ? lb : la;
  const Layout& ls = via_transpose ? la : lb;
  plan->m = via_transpose ? N : M;
  plan->n = via_transpose ? M : N;
  plan->first = {element0(*first.t), lf.row_major != lo.row_major, lf.ld,
                 via_transpose ? batch_stride_b : batch_stride_a};
  plan->second = {element0(*second.t), ls.row_major != lo.row_major, ls.ld,
                  via_transpose ? batch_stride_a : batch_stride_b};
  plan->out = element0(outputs[0]);
  plan->ld_out = lo.ld;
  plan->batch_stride_out = out.batch_stride;
  if (a.group_size || b.group_size || out.group_size) {
    // Every operand addressed by its own two batch strides, as groups of B2 matrices.
    const auto group_of = [](const Matrix& m, BlasOperand* o) {
      o->group_stride = m.t->strides[0];
      o->batch_stride = m.t->strides[1];
    };
    plan->group_size = out.t->shape[1];
    group_of(first, &plan->first);
    group_of(second, &plan->second);
    plan->group_stride_out = out.t->strides[0];
    plan->batch_stride_out = out.t->strides[1];
  }
  if (!fits_int(plan->m) || !fits_int(plan->n) || !fits_int(K) || !fits_int(batch) || !fits_int(lf.ld) ||
      !fits_int(ls.ld) || !fits_int(lo.ld)) {
    *why = "has a dimension or leading dimension beyond cuBLAS's 32-bit range";
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (is_bias_epilogue(*plan, out, lo.row_major, lo.ld)) plan->bias = element0(*c);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_gpu
