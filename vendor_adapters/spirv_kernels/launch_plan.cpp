// plan(): which family planner (plan_*.cpp) takes an op, by the op's family in adapter_ops.def, and supports(),
// which answers the same without tensors.
#include "launch_plan.h"

#include "kernels/elementwise_params.h"
#include "kernels/elementwise_special.cuh"
#include "kernels/op_families.h"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv {
namespace {

// An elementwise op of the library's math on float32, or (integer-only ops) on int64.
bool is_elementwise_math_op(hal_op_t op) { return hal_gpu::ew::op_info(op).arity > 0; }

bool is_fill_dtype(hal_dtype_t t) {
  const hal_gpu::DType d = hal_gpu::dtype_of(t);
  return d != hal_gpu::DType::Unsupported;
}

// The ops this library has a planner for: within each family of adapter_ops.def, the ops its planner takes.
bool is_planned(hal_op_t op) {
  using hal_gpu::Family;
  switch (hal_gpu::family_of(op)) {
    case Family::elementwise:  // the special functions compute in double, which the SPIR-V module leaves out
      return op == HAL_OP_FILL || op == HAL_OP_ARANGE ||
             (is_elementwise_math_op(op) && !hal_gpu::ew::is_special_function(op));
    case Family::gemm: return true;
    case Family::reduction: return detail::is_planned_reduction(op);
    case Family::softmax: return true;
    case Family::loss: return true;  // NLL
    case Family::random:
      return op == HAL_OP_UNIFORM || op == HAL_OP_NORMAL || op == HAL_OP_DROPOUT || op == HAL_OP_DROPOUT_BACKWARD;
    case Family::convolution: return true;
    case Family::pooling: return true;
    case Family::batch_norm: return true;
    case Family::fused_optimizer: return true;
    case Family::layer_norm: return true;
    case Family::indexing:
      return op == HAL_OP_INDEX_SELECT || op == HAL_OP_GATHER || op == HAL_OP_SCATTER || op == HAL_OP_INDEX_PUT;
    case Family::embedding: return true;
    case Family::triangular: return true;
    case Family::dft: return true;
    case Family::scan:
      return op == HAL_OP_CUMSUM || op == HAL_OP_CUMPROD || op == HAL_OP_LOGCUMSUMEXP || op == HAL_OP_CUMMAX ||
             op == HAL_OP_CUMMIN;
    case Family::search: return op == HAL_OP_SEARCHSORTED;
    default: return false;
  }
}

// Whether some kernel of the planned op takes tensors of t's dtype (op_supported's question: one tensor per
// dtype; the planners then check the layouts and the mix).
bool takes_dtype(hal_op_t op, const hal_tensor_t& t) {
  using hal_gpu::DType;
  using hal_gpu::Family;
  const DType d = hal_gpu::dtype_of(t.dtype);
  if (op == HAL_OP_FILL) return is_fill_dtype(t.dtype);
  if (op == HAL_OP_ARANGE) return hal_gpu::is_floating(d) || d == DType::I64 || d == DType::I32;
  int32_t type = kF32;
  switch (hal_gpu::family_of(op)) {
    // float32, or int64 for ops that take integers; bool and integer operands of other types run only beside a
    // float32 one (the typed kernels), which a one-dtype question cannot ask.
    case Family::elementwise: return detail::is_elementwise_dtype(op, t.dtype);
    case Family::reduction:
      // Floating dtypes; bool and integers too (SUM, PROD, AMAX, AMIN, ARGMAX, ARGMIN in int64; ALL, ANY).
      if (op == HAL_OP_MEAN || op == HAL_OP_VECTOR_NORM || op == HAL_OP_VAR || op == HAL_OP_STD) {
        return hal_gpu::is_floating(d);
      }
      return detail::element_type_of(t, &type);
    case Family::loss:  // NLL: int64 targets
      return hal_gpu::is_floating(d) || d == DType::I64;
    case Family::pooling:  // int64 indices
      return hal_gpu::is_floating(d) || d == DType::I64;
    case Family::random:  // DROPOUT's bool mask
      return d == DType::F32 || (d == DType::Bool && (op == HAL_OP_DROPOUT || op == HAL_OP_DROPOUT_BACKWARD));
    case Family::embedding: return d == DType::F32 || d == DType::I64 || d == DType::I32;  // and indices
    case Family::indexing: return d != DType::Unsupported;    // raw bytes, int64/int32 indices
    case Family::triangular: return d != DType::Unsupported;  // raw bytes
    case Family::scan: return hal_gpu::is_floating(d) || detail::element_type_of(t, &type);
    case Family::search: return d == DType::F32 || d == DType::I64 || d == DType::I32;  // int32: out_int32
    case Family::softmax:
    case Family::layer_norm:
    case Family::gemm:
    case Family::convolution: return hal_gpu::is_floating(d);
    default: return d == DType::F32;
  }
}

}  // namespace

KernelArg KernelArg::of_pointer(const void* p) {
  KernelArg a;
  a.kind = Kind::Pointer;
  a.pointer = p;
  a.size = sizeof(void*);
  return a;
}

bool supports(hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors) {
  if (module_bytes(Module::Elementwise).size == 0) return false;
  if (!is_planned(op)) return false;
  for (int32_t i = 0; tensors != nullptr && i < num_tensors; ++i) {
    if (!takes_dtype(op, tensors[i])) return false;
  }
  return true;
}

hal_status_t op_supported(int32_t /*device*/, hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors) {
  return supports(op, tensors, num_tensors) ? HAL_STATUS_SUCCESS : HAL_STATUS_NOT_SUPPORTED;
}

hal_status_t plan(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                  int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                  std::vector<Launch>* launches) {
  if (!is_planned(op)) return HAL_STATUS_NOT_SUPPORTED;
  using hal_gpu::Family;
  switch (hal_gpu::family_of(op)) {
    case Family::elementwise:
      if (op == HAL_OP_FILL) return detail::plan_fill(outputs, num_outputs, scalars, num_scalars, launches);
      if (op == HAL_OP_ARANGE) return detail::plan_arange(outputs, num_outputs, scalars, num_scalars, launches);
      return detail::plan_elementwise(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::gemm:
      return detail::plan_gemm(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::reduction:
      return detail::plan_reduce(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::softmax:
      return detail::plan_softmax(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::loss:
      return detail::plan_nll_loss(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::random:
      return detail::plan_random(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::convolution:
      return detail::plan_convolution(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::fused_optimizer:
      return detail::plan_fused_optimizer(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars,
                                          launches);
    case Family::pooling:
      return detail::plan_pooling(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::batch_norm:
      return detail::plan_batch_norm(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::layer_norm:
      return detail::plan_layer_norm(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::indexing:
      return detail::plan_indexing(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::embedding:
      return detail::plan_embedding_backward(inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::triangular:
      return detail::plan_triangular(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::dft:
      return detail::plan_dft(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::scan:
      return detail::plan_scan(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    case Family::search:
      return detail::plan_search(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
    default:
      break;
  }
  return HAL_STATUS_NOT_SUPPORTED;
}

}  // namespace hal_spirv
