// DFT's operand checks (dft_geometry.h), shared by the CUDA/HIP launcher and the SPIR-V planner.
#include "kernels/dft_geometry.h"

#include "kernels/tensor_operands.h"

namespace hal_gpu {
namespace {

// x [outer, n, inner] or [outer, n, inner, 2]: dense float32. Sets the line length and whether it is complex.
bool line_tensor(const hal_tensor_t& t, int64_t* outer, int64_t* length, int64_t* inner, bool* is_complex) {
  if (t.data == nullptr || (t.ndim != 3 && t.ndim != 4) || dtype_of(t.dtype) != DType::F32 || !is_contiguous(t)) {
    return false;
  }
  if (t.ndim == 4 && t.shape[3] != 2) return false;
  *outer = t.shape[0];
  *length = t.shape[1];
  *inner = t.shape[2];
  *is_complex = t.ndim == 4;
  return true;
}

int64_t as_int(const hal_scalar_t& s) { return s.kind == 1 ? s.value.i : static_cast<int64_t>(s.value.f); }

}  // namespace

bool dft_problem_of(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs, int32_t num_outputs,
                    const hal_scalar_t* scalars, int32_t num_scalars, DftProblem* p) {
  if (num_inputs != 1 || num_outputs != 1 || scalars == nullptr || num_scalars < 3) return false;
  int64_t outer_in, n_in, inner_in, outer_out, n_out, inner_out;
  if (!line_tensor(inputs[0], &outer_in, &n_in, &inner_in, &p->complex_in) ||
      !line_tensor(outputs[0], &outer_out, &n_out, &inner_out, &p->complex_out)) {
    return false;
  }
  const int64_t n = as_int(scalars[0]), sign = as_int(scalars[1]);
  if (outer_in != outer_out || inner_in != inner_out || (!p->complex_in && !p->complex_out)) return false;
  if (n < 1 || n > kMaxDftLength || n_in < 1 || n_in > kMaxDftLength || n_out < 1) return false;
  // A complex output holds coefficients 0..n_out-1 of n; a real one is the signal itself.
  if (p->complex_out ? n_out > n : n_out != n) return false;
  if (sign != -1 && sign != 1) return false;
  p->outer = outer_in;
  p->inner = inner_in;
  p->n_in = static_cast<int32_t>(n_in);
  p->n_out = static_cast<int32_t>(n_out);
  p->n = static_cast<int32_t>(n);
  p->sign = static_cast<int32_t>(sign);
  p->scale = static_cast<float>(scalars[2].kind == 1 ? static_cast<double>(scalars[2].value.i) : scalars[2].value.f);
  p->outputs = p->outer * n_out * p->inner;
  // 32-bit index math in the kernels: every element of either tensor below 2^31.
  const int64_t limit = int64_t{1} << 31;
  return p->outputs * 2 < limit && p->outer * n_in * p->inner * 2 < limit;
}

}  // namespace hal_gpu
