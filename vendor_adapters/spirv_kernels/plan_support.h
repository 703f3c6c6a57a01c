// What the family planners (plan_*.cpp) share: operand checks, the merging of dimensions into the kernels'
// layouts (kernels/kernel_layouts.h), scalars, work sizes. Internal to hal_spirv_kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel_layouts.h"
#include "kernels/tensor_operands.h"
#include "launch_plan.h"

namespace hal_spirv::detail {

bool is_float32(const hal_tensor_t& t);
// A tensor in memory (neither a scalar operand nor absent) of dtype float32.
bool is_float32_tensor(const hal_tensor_t& t);
bool same_shape(const hal_tensor_t& a, const hal_tensor_t& b);
// The element type (kernels/kernel_layouts.h) of t's dtype for the typed kernels; false for complex dtypes.
bool element_type_of(const hal_tensor_t& t, int32_t* type);
// float32, float16 or bfloat16: the element types whose compute type is float32 (float64's is float64).
bool is_float_type(int32_t type);

// A scalar as the kernel library reads it (tensor_operands.h).
using hal_gpu::scalar_as_double;
using hal_gpu::scalar_as_int;

// Dimensions of `shape` walked row-major with each operand's strides (strides[k] == nullptr: all 0), size-1
// dims dropped and neighbours merged where every operand steps through them as through one dim. Writes the
// sizes to size[] and operand k's strides to stride[k][]; false where more than kMaxDims remain.
bool merge_dims(const int64_t* shape, int32_t ndim, const int64_t* const* strides, int count, int64_t* size,
                int64_t (*stride)[kMaxDims], int32_t* merged_ndim);

size_t round_up(size_t v, size_t multiple);
// SUM, MEAN, PROD, AMAX, AMIN, VECTOR_NORM: the reductions kernels/reduce.cl computes.
bool is_planned_reduction(hal_op_t op);
// The smallest power of two >= v, at most `cap`.
size_t pow2_at_least(int64_t v, size_t cap);

// The position of a floating dtype in the families' per-dtype kernel tables (their suffixes f32, f16, bf16, f64):
// 0 to 3; -1 for other dtypes.
int floating_index(hal_gpu::DType d);

// The module of a family's kernels for tensors of dtype d: the family's own, or float64.cl's for float64.
inline Module module_for(hal_gpu::DType d, Module family) {
  return d == hal_gpu::DType::F64 ? Module::Float64 : family;
}

// A launch of `kernel` in `module` with the pointer of each tensor (a null one, never read, replaced by
// `stand_in`, since not every runtime takes a null pointer argument).
Launch launch_of(Module module, const char* kernel);
void add_pointer(Launch* l, const hal_tensor_t& t, const void* stand_in);

// A launch of `kernel` in `module` with a work-item per element of `out` (n > 0 of them), its first arguments
// out's pointer, out's layout (operand 0 of a StridedLayout) and n: what fill and the random draws take. False
// where out's dims do not merge into kMaxDims.
bool output_walk(Module module, const char* kernel, const hal_tensor_t& out, int64_t n, Launch* l);

// Whether the elementwise kernels take `op` on tensors of dtype `t`: float32, or int64 for ops that take integers.
bool is_elementwise_dtype(hal_op_t op, hal_dtype_t t);

// The family planners: NOT_SUPPORTED for what their kernels do not take. Most take an op as plan() does.
using Planner = hal_status_t(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                             int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                             std::vector<Launch>* launches);
// plan_random: UNIFORM and NORMAL into float32 outputs, DROPOUT and its backward on dense float32;
// plan_fused_optimizer: FUSED_ADAM and FUSED_SGD on float32, a launch per parameter.
Planner plan_elementwise, plan_gemm, plan_reduce, plan_softmax, plan_nll_loss, plan_convolution, plan_pooling,
    plan_batch_norm, plan_random, plan_fused_optimizer, plan_layer_norm, plan_triangular, plan_dft, plan_scan,
    plan_search;
hal_status_t plan_fill(const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars, std::vector<Launch>* launches);
hal_status_t plan_arange(const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                         int32_t num_scalars, std::vector<Launch>* launches);
// The indexing family (plan_indexing.cpp): INDEX_SELECT, GATHER, SCATTER without reduction, INDEX_PUT without
// accumulation.
hal_status_t plan_indexing(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                           int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                           std::vector<Launch>* launches);
// The bytes of scalar `v` converted to dtype `t` (as FILL writes it), in the low bytes of *bits; false for dtypes
// the SPIR-V kernels have no conversion for (complex).
bool scalar_bits(const hal_scalar_t& v, hal_dtype_t t, uint64_t* bits);
hal_status_t plan_embedding_backward(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                                     int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                                     std::vector<Launch>* launches);

}  // namespace hal_spirv::detail
