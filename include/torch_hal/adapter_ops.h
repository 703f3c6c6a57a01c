/* torch_hal adapter ABI: the operator ids of native kernels and their conventions (part of adapter.h, which
 * includes it). A header of its own so that kernel sources compiled for devices that cannot read adapter.h's
 * function table (OpenCL C++ for SPIR-V refuses function pointers) share the same ids; such sources define
 * the fixed-width integer types before including it. */
#ifndef TORCH_HAL_ADAPTER_OPS_H_
#define TORCH_HAL_ADAPTER_OPS_H_

#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_CPP_VERSION__)
#include <stdint.h>
#endif

/* Operator ids for native kernels, declared in adapter_ops.def. Numbering is part of the ABI: append only.
 *
 * Conventions for every op (ABI 1.1):
 *  - Tensors live on the launching device. Strides are in elements (0 on broadcast dimensions);
 *    element 0 is at (char*)data + byte_offset. The core never passes more than HAL_MAX_DIMS dims.
 *  - An input with data == NULL and ndim == 0 is a SCALAR OPERAND: its value is the next unused entry
 *    of `scalars`, taken in input order before the op's own scalars; its dtype field is the type the
 *    value stands for. An input or output with data == NULL and ndim < 0 is ABSENT (an optional tensor
 *    the caller did not pass, or an output it does not want).
 *  - launch_op returns HAL_STATUS_NOT_SUPPORTED, with no side effect, for any op, dtype combination or
 *    layout it does not handle; the core then takes its fallback path.
 *  - Outputs never overlap inputs partially: an output is either disjoint from every input or the very
 *    same tensor (in-place ops), which elementwise kernels must support.
 *
 * ELEMENTWISE ops (HAL_ELEMENTWISE_OP in adapter_ops.def): every input and output has the output's ndim and shape.
 * Values are computed in the COMPUTE TYPE: float64 when any tensor operand or output (bool outputs
 * aside) is float64, else float32 when any is a floating type (f16, bf16, f32), else int64; each input
 * is converted to it on load and the result converted to the output's dtype on store (bool: != 0).
 * Comparison ops write bool. Scalars marked (s) in adapter_ops.def are the op's own, after scalar operands.
 *
 * MULTI-TENSOR ops (700..799) run one op over G independent GROUPS of tensors in a single launch, as an
 * optimizer step updates every parameter at once. HAL_OP_FOREACH applies one ELEMENTWISE op (of arity
 * 1..3), whose id is scalars[0] (an int), to each group: outputs are G tensors; inputs are G * arity,
 * group-major (inputs[g * arity + k] is operand k of group g). Within a group every tensor operand has
 * outputs[g]'s shape, and the inner op's conventions apply (scalar operands, compute type); a tensor operand
 * whose strides are all 0 is one element broadcast over the group, of any floating dtype, which the adapter
 * reads on the device (a 0-dim tensor operand: the .Tensor overloads of torch._foreach_*). outputs[g] may
 * be the very same tensor as an input of group g (in place); it never overlaps any other operand of any
 * group. Scalars differ from the general rule: after scalars[0] come, group by group, that group's scalar
 * operands' values (in input order) followed by the inner op's own scalars, so each group carries its own
 * values (one per tensor). Groups of zero elements are skipped. A launch with any group the adapter cannot
 * run (e.g. non-contiguous, or dtypes it does not mix) is NOT_SUPPORTED as a whole, with no side effect:
 * the caller then runs the op one tensor at a time.
 */
#define HAL_MAX_DIMS 12
typedef int32_t hal_op_t;

/* The ids, one per line of adapter_ops.def (the one list of ops; read it for each op's operands). */
enum {
#define HAL_OP(NAME, id, family) HAL_OP_##NAME = id,
#include "torch_hal/adapter_ops.def"
};

/* Normalization over channels or groups, pooling and upsampling (900..999). Layouts, for every op of these families:
 *  - [N, C, S] (batch norm): x and y share one of two dense layouts, channels-first (strides C*S, S, 1) or
 *    channels-last (strides C*S, 1, C; what a channels_last tensor's [N, C, H*W] view has); S may be 1.
 *  - [N, C, H, W] (pooling, upsampling): contiguous or channels-last (strides H*W*C, 1, W*C, C); every
 *    tensor of one launch has the same one. Indices are int64 offsets into an input plane (h * W + w).
 *  - rows (group norm [N, C, HxW], RMS norm [M, N]): contiguous.
 * Storage types f32, f16, bf16, f64; x, y, dy and dx share one; [C]/[N] parameters (weight, bias,
 * running statistics) may be any floating type (f32 for f16/bf16 inputs, as PyTorch's mixed batch norm);
 * accumulation in float32 (float64 for f64). "acc" in adapter_ops.def is that type. */

/* Convolution (1000..1099), as PyTorch's (cross-correlation). Tensors have 3, 4 or 5 dims, [N, C, spatial...]
 * (1 to 3 spatial dims), all of one ndim and one storage type (f32, f16, bf16, f64; accumulation in f32, f64 for
 * f64). x and y are [N, C, S...] and [N, O, Q...] with any strides; w is [O, C / groups, K...], dense contiguous or
 * dense channels-last (strides C*K, 1, ..., C). Outputs are written in full. Scalars, for every convolution op: (s) groups,
 * allow_tf32 (f32 may use TF32 tensor cores, as torch.backends.cudnn.allow_tf32), then for each spatial dim d its
 * stride, padding (both sides) and dilation: Q[d] = (S[d] + 2 * pad[d] - dil[d] * (K[d] - 1) - 1) / stride[d] + 1.
 * A transposed convolution is BACKWARD_INPUT with its input as dy; bias and its gradient are the caller's. */

#endif /* TORCH_HAL_ADAPTER_OPS_H_ */
