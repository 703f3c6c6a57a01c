// read_batch_norm(): an adapter launch of the batch norm family (adapter_ops.h states the operands) as the problem
// the library's kernels compute. Plain host C++: compiled into the NVIDIA and AMD adapters with the library and
// into the SPIR-V planners.
#include "kernels/batch_norm_geometry.h"

namespace hal_gpu {
namespace {

// Dims of size 1 aside, `t` has exactly `strides` (element strides of a [N, C, S] tensor).
bool has_strides(const hal_tensor_t& t, const int64_t (&strides)[3]) {
  for (int d = 0; d < 3; ++d) {
    if (t.shape[d] != 1 && t.strides[d] != strides[d]) return false;
  }
  return true;
}

// The layout of x [N, C, S]: channels-first or channels-last; false for anything else. With S == 1 or
// C == 1 both name the same addresses.
bool layout_of(const hal_tensor_t& x, BatchNormProblem& p) {
  if (x.data == nullptr || x.ndim != 3) return false;
  p.N = x.shape[0];
  p.C = x.shape[1];
  p.S = x.shape[2];
  p.R = p.N * p.S;
  const int64_t first[3] = {p.C * p.S, p.S, 1}, last[3] = {p.C * p.S, 1, p.C};
  if (has_strides(x, last)) p.channels_last = true;
  else if (has_strides(x, first)) p.channels_last = false;
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

bool refuse(const char** why, const char* message) {
  *why = message;
  return false;
}

// The forward's operands beyond x's: inputs x, weight, bias, running_mean, running_var; outputs y, save_mean,
// save_invstd, running_mean, running_var (training: the inputs' tensors, updated in place).
bool read_forward(const hal_tensor_t* in, const hal_tensor_t* out, const hal_scalar_t* scalars, DType acc,
                  BatchNormProblem& p, const char** why) {
  if (!same_layout(out[0], in[0])) return refuse(why, "batch_norm: y must match x");
  for (int k = 1; k < 5; ++k) {
    if (!is_param_vector(in[k], p.C)) {
      return refuse(why, "batch_norm: weight, bias and running statistics must be [C]");
    }
  }
  for (int k = 3; k < 5; ++k) {
    if (!is_param_vector(out[k], p.C)) return refuse(why, "batch_norm: running statistics must be [C]");
  }
  p.training = scalar_as_int(scalars[0]) != 0;
  p.momentum = scalar_as_double(scalars[1]);
  p.eps = scalar_as_double(scalars[2]);
  if (!is_acc_vector(out[1], p.C, acc) || !is_acc_vector(out[2], p.C, acc)) {
    return refuse(why, "batch_norm: save_mean/save_invstd must be [C] of the accumulation type");
  }
  if (p.training) {
    for (int k = 3; k < 5; ++k) {
      if (is_absent(in[k]) != is_absent(out[k]) || (!is_absent(in[k]) && in[k].data != out[k].data)) {
        return refuse(why, "batch_norm: running statistics must be updated in place");
      }
    }
    if (p.R == 0) return refuse(why, "batch_norm: no elements per channel in training");
  } else if (is_absent(in[3]) || is_absent(in[4])) {
    return refuse(why, "batch_norm: evaluation needs running statistics");
  }
  return true;
}

// The backward's: inputs dy, x, weight, mean, invstd; outputs dx, dweight, dbias (each may be absent).
bool read_backward(const hal_tensor_t* in, const hal_tensor_t* out, const hal_scalar_t* scalars, DType acc,
                   BatchNormProblem& p, const char** why) {
  if (!same_layout(in[0], in[1]) || !is_param_vector(in[2], p.C)) {
    return refuse(why, "batch_norm backward: dy must match x; weight must be [C]");
  }
  p.training = scalar_as_int(scalars[0]) != 0;
  if (!is_acc_vector(in[3], p.C, acc) || !is_acc_vector(in[4], p.C, acc)) {
    return refuse(why, "batch_norm backward: mean/invstd must be [C] of the accumulation type");
  }
  const hal_tensor_t &dx = out[0], &dw = out[1], &db = out[2];
  if ((!is_absent(dx) && !same_layout(dx, in[1])) || !is_param_vector(dw, p.C) || !is_param_vector(db, p.C)) {
    return refuse(why, "batch_norm backward: dx must match x, dweight/dbias must be [C]");
  }
  p.want_dx = !is_absent(dx) && p.R > 0;
  p.need_sums = (p.want_dx && p.training) || !is_absent(dw) || !is_absent(db);
  return true;
}

}  // namespace

bool read_batch_norm(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                     int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                     BatchNormProblem* problem, const char** why) {
  BatchNormProblem& p = *problem;
  p = BatchNormProblem{};
  p.backward = op == HAL_OP_BATCH_NORM_BACKWARD;
  if ((op != HAL_OP_BATCH_NORM && !p.backward) || inputs == nullptr || outputs == nullptr || num_inputs != 5 ||
      num_outputs != (p.backward ? 3 : 5) || scalars == nullptr || num_scalars < (p.backward ? 1 : 3)) {
    return refuse(why, "batch_norm: unexpected operands");
  }
  const hal_tensor_t& x = inputs[p.backward ? 1 : 0];
  if (!layout_of(x, p)) return refuse(why, "batch_norm: x must be a dense [N, C, S]");
  if (p.C == 0) return true;  // nothing to compute
  p.dtype = dtype_of(x.dtype);
  if (!is_floating(p.dtype)) return refuse(why, "batch_norm: unsupported dtype");
  const DType acc = p.dtype == DType::F64 ? DType::F64 : DType::F32;
  return p.backward ? read_backward(inputs, outputs, scalars, acc, p, why)
                    : read_forward(inputs, outputs, scalars, acc, p, why);
}

}  // namespace hal_gpu
