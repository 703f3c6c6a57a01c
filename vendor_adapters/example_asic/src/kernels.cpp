#include "kernels.h"

#include <algorithm>
#include <vector>

namespace example_asic {
namespace {

bool is_float32(const hal_tensor_t& t) {
  return t.dtype.code == HAL_DTYPE_FLOAT && t.dtype.bits == 32 && t.dtype.lanes == 1;
}

bool is_scalar_operand(const hal_tensor_t& t) { return t.data == nullptr && t.ndim == 0; }

bool is_native(hal_op_t op) {
  return op == HAL_OP_ADD || op == HAL_OP_MUL || op == HAL_OP_RELU || op == HAL_OP_MATMUL;
}

float scalar_value(const hal_scalar_t& s) {
  switch (s.kind) {
    case 1: return static_cast<float>(s.value.i);
    case 2: return s.value.b ? 1.0f : 0.0f;
    default: return static_cast<float>(s.value.f);
  }
}

// One operand as the loops see it: the address of element 0 and strides in elements. A scalar operand
// points at its value with all-zero strides, so the loops need no special case.
struct Operand {
  float* data;
  std::vector<int64_t> strides;
};

Operand operand_of(const hal_tensor_t& t, int32_t ndim, const float* scalar) {
  Operand o;
  if (is_scalar_operand(t)) {
    o.data = const_cast<float*>(scalar);
    o.strides.assign(ndim, 0);
    return o;
  }
  o.data = reinterpret_cast<float*>(static_cast<char*>(t.data) + t.byte_offset);
  if (t.strides) {
    o.strides.assign(t.strides, t.strides + t.ndim);
  } else {  // DLPack's NULL strides: compact row-major
    o.strides.assign(t.ndim, 1);
    for (int32_t d = t.ndim - 2; d >= 0; --d) o.strides[d] = o.strides[d + 1] * t.shape[d + 1];
  }
  return o;
}

// The bytes a strided tensor touches; false (and nothing to check) when it has no element.
bool byte_range(const hal_tensor_t& t, const Operand& o, const char** begin, uint64_t* bytes) {
  int64_t lo = 0, hi = 0;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) return false;
    const int64_t span = (t.shape[d] - 1) * o.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  *begin = reinterpret_cast<const char*>(o.data + lo);
  *bytes = static_cast<uint64_t>(hi - lo + 1) * sizeof(float);
  return true;
}

// Calls f(out, a, b) for every element of `shape`, walking the last dimension in the inner loop.
template <typename F>
void for_each_element(const std::vector<int64_t>& shape, const Operand& out, const Operand& a, const Operand& b, F f) {
  const size_t ndim = shape.size();
  for (int64_t n : shape)
    if (n == 0) return;
  if (ndim == 0) {
    f(*out.data, *a.data, *b.data);
    return;
  }
  const int64_t inner = shape[ndim - 1];
  const int64_t so = out.strides[ndim - 1], sa = a.strides[ndim - 1], sb = b.strides[ndim - 1];
  std::vector<int64_t> index(ndim, 0);
  float *po = out.data, *pa = a.data, *pb = b.data;
  while (true) {
    for (int64_t i = 0; i < inner; ++i) f(po[i * so], pa[i * sa], pb[i * sb]);
    // Odometer over the outer dimensions, moving each pointer by its strides.
    size_t d = ndim - 1;
    while (d-- > 0) {
      po += out.strides[d];
      pa += a.strides[d];
      pb += b.strides[d];
      if (++index[d] < shape[d]) break;
      po -= out.strides[d] * shape[d];
      pa -= a.strides[d] * shape[d];
      pb -= b.strides[d] * shape[d];
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

hal_status_t fail(std::string* error, hal_status_t status, std::string message) {
  *error = std::move(message);
  return status;
}

}  // namespace

hal_status_t kernel_supported(hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors) {
  if (!is_native(op)) return HAL_STATUS_NOT_SUPPORTED;
  for (int32_t i = 0; i < num_tensors; ++i) {
    if (!is_scalar_operand(tensors[i]) && !is_float32(tensors[i])) return HAL_STATUS_NOT_SUPPORTED;
  }
  return HAL_STATUS_SUCCESS;
}

hal_status_t run_kernel(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                        int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                        const RangeCheck& on_device, std::string* error) {
  const std::string name = op == HAL_OP_ADD ? "add" : op == HAL_OP_MUL ? "mul" : op == HAL_OP_RELU ? "relu" : "matmul";
  const int32_t arity = op == HAL_OP_RELU ? 1 : 2;
  if (!is_native(op) || num_inputs != arity || num_outputs != 1) {
    return fail(error, HAL_STATUS_NOT_SUPPORTED, "example_asic has no kernel for op " + std::to_string(op) +
                                                     " with " + std::to_string(num_inputs) + " inputs and " +
                                                     std::to_string(num_outputs) + " outputs");
  }
  const hal_tensor_t& out = outputs[0];
  if (is_scalar_operand(out) || !is_float32(out)) {
    return fail(error, HAL_STATUS_NOT_SUPPORTED, "example_asic " + name + ": only float32 outputs are native");
  }

  // Scalar operands take scalars[0..k), in input order; the op's own scalars follow.
  float scalar_operands[2] = {0, 0};
  int32_t used = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    const hal_tensor_t& t = inputs[i];
    if (is_scalar_operand(t)) {
      if (op == HAL_OP_MATMUL) return fail(error, HAL_STATUS_NOT_SUPPORTED, "example_asic matmul: no scalar operands");
      if (used >= num_scalars) {
        return fail(error, HAL_STATUS_INVALID_ARGUMENT, "example_asic " + name + ": input " + std::to_string(i) +
                                                            " is a scalar operand but `scalars` has no entry for it");
      }
      scalar_operands[i] = scalar_value(scalars[used++]);
      continue;
    }
    if (!is_float32(t)) return fail(error, HAL_STATUS_NOT_SUPPORTED, "example_asic " + name + ": only float32 is native");
    if (op != HAL_OP_MATMUL && (t.ndim != out.ndim || !std::equal(t.shape, t.shape + t.ndim, out.shape))) {
      return fail(error, HAL_STATUS_NOT_SUPPORTED, "example_asic " + name + ": input " + std::to_string(i) +
                                                       " does not have the output's shape (broadcast it with stride 0)");
    }
  }
  const int32_t own_scalars = num_scalars - used;
  if (own_scalars < 0 || own_scalars > (op == HAL_OP_ADD ? 1 : 0)) {
    return fail(error, HAL_STATUS_INVALID_ARGUMENT, "example_asic " + name + ": " + std::to_string(num_scalars) +
                                                        " scalars for " + std::to_string(used) + " scalar operands" +
                                                        (op == HAL_OP_ADD ? " and an optional alpha" : ""));
  }
  const float alpha = own_scalars == 1 ? scalar_value(scalars[used]) : 1.0f;

  if (op == HAL_OP_MATMUL) {
    const hal_tensor_t &a = inputs[0], &b = inputs[1];
    if (a.ndim != 2 || b.ndim != 2 || out.ndim != 2 || a.shape[1] != b.shape[0] || out.shape[0] != a.shape[0] ||
        out.shape[1] != b.shape[1]) {
      return fail(error, HAL_STATUS_NOT_SUPPORTED, "example_asic matmul: only (M,K) @ (K,N) -> (M,N) is native");
    }
  }

  std::vector<int64_t> shape(out.shape, out.shape + out.ndim);
  Operand o = operand_of(out, out.ndim, nullptr);
  Operand a = operand_of(inputs[0], out.ndim, &scalar_operands[0]);
  Operand b = arity == 2 ? operand_of(inputs[1], out.ndim, &scalar_operands[1]) : a;

  // Every device-side range must be this device's memory: checked before anything is written.
  const std::pair<const hal_tensor_t*, const Operand*> all[] = {{&out, &o}, {&inputs[0], &a}, {&inputs[arity - 1], &b}};
  for (const auto& [t, operand] : all) {
    const char* begin = nullptr;
    uint64_t bytes = 0;
    if (is_scalar_operand(*t) || !byte_range(*t, *operand, &begin, &bytes)) continue;
    if (!on_device(begin, bytes)) {
      return fail(error, HAL_STATUS_INVALID_ARGUMENT, "example_asic " + name + ": a tensor's " + std::to_string(bytes) +
                                                          " bytes are not inside an allocation of this device");
    }
  }

  switch (op) {
    case HAL_OP_ADD:
      for_each_element(shape, o, a, b, [alpha](float& r, float x, float y) { r = x + alpha * y; });
      break;
    case HAL_OP_MUL:
      for_each_element(shape, o, a, b, [](float& r, float x, float y) { r = x * y; });
      break;
    case HAL_OP_RELU:
      // NaN stays NaN, as in ATen (a plain max(x, 0) would turn it into 0).
      for_each_element(shape, o, a, a, [](float& r, float x, float) { r = x > 0.0f || x != x ? x : 0.0f; });
      break;
    case HAL_OP_MATMUL: {
      const int64_t M = shape[0], N = shape[1], K = inputs[0].shape[1];
      // Into a scratch buffer first: `out` may alias an input.
      std::vector<float> result(static_cast<size_t>(M * N), 0.0f);
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t k = 0; k < K; ++k) {
          const float aik = a.data[i * a.strides[0] + k * a.strides[1]];
          for (int64_t j = 0; j < N; ++j) result[i * N + j] += aik * b.data[k * b.strides[0] + j * b.strides[1]];
        }
      }
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) o.data[i * o.strides[0] + j * o.strides[1]] = result[i * N + j];
      break;
    }
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace example_asic
