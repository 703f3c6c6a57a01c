/* torch_hal adapter ABI: the operator ids of native kernels and their conventions (part of adapter.h, which
 * includes it). A header of its own so that kernel sources compiled for devices that cannot read adapter.h's
 * function table (OpenCL C++ for SPIR-V refuses function pointers) share the same ids; such sources define
 * the fixed-width integer types before including it. */
#ifndef TORCH_HAL_ADAPTER_OPS_H_
#define TORCH_HAL_ADAPTER_OPS_H_

#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_CPP_VERSION__)
#include <stdint.h>
#endif

/* Operator ids for native kernels. Numbering is part of the ABI: append only.
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
 * ELEMENTWISE ops (FILL..ARANGE excluded): every input and output has the output's ndim and shape.
 * Values are computed in the COMPUTE TYPE: float64 when any tensor operand or output (bool outputs
 * aside) is float64, else float32 when any is a floating type (f16, bf16, f32), else int64; each input
 * is converted to it on load and the result converted to the output's dtype on store (bool: != 0).
 * Comparison ops write bool. Scalars marked (s) below are the op's own, after scalar operands.
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
enum {
  HAL_OP_FILL = 1,          /* outputs[0] = scalars[0] */
  HAL_OP_COPY = 2,          /* outputs[0] = inputs[0] (same shape), strided, any dtype conversion */
  HAL_OP_ARANGE = 3,        /* 1-D outputs[0][i] = start + i * step; (s) start, step */

  /* binary, elementwise */
  HAL_OP_ADD = 10,          /* a + alpha * b; (s) alpha */
  HAL_OP_SUB = 11,          /* a - alpha * b; (s) alpha */
  HAL_OP_MUL = 12,
  HAL_OP_DIV = 13,          /* (s) rounding: 0 true division, 1 trunc, 2 floor */
  HAL_OP_RELU = 20,         /* unary */
  HAL_OP_MATMUL = 40,       /* outputs[0] = inputs[0] @ inputs[1], 2-D */
  HAL_OP_GEMM = 41,         /* out = alpha * a @ b + beta * c: a [B,M,K] or [M,K], b [B,K,N] or [K,N],
                               c ABSENT or out's shape (broadcast strides allowed); (s) alpha, beta.
                               Each matrix has unit stride in one of its last two dims. Optionally also
                               4-D a [B1,B2,M,K], b [B1,B2,K,N], out [B1,B2,M,N], any batch strides
                               (attention's heads); an adapter may answer NOT_SUPPORTED for 4-D. */

  /* unary, elementwise */
  HAL_OP_NEG = 100, HAL_OP_ABS = 101, HAL_OP_EXP = 102, HAL_OP_LOG = 103, HAL_OP_SQRT = 104,
  HAL_OP_RSQRT = 105, HAL_OP_SIN = 106, HAL_OP_COS = 107, HAL_OP_TANH = 108, HAL_OP_SIGMOID = 109,
  HAL_OP_GELU = 110,        /* (s) approximate: 0 erf, 1 tanh */
  HAL_OP_SILU = 111, HAL_OP_RECIPROCAL = 112, HAL_OP_FLOOR = 113, HAL_OP_CEIL = 114,
  HAL_OP_ROUND = 115,       /* half to even */
  HAL_OP_TRUNC = 116, HAL_OP_SIGN = 117, HAL_OP_LOG1P = 118, HAL_OP_EXPM1 = 119, HAL_OP_ERF = 120,
  HAL_OP_LOGICAL_NOT = 121, HAL_OP_BITWISE_NOT = 122, HAL_OP_ISNAN = 123, HAL_OP_LOG2 = 124,
  HAL_OP_EXP2 = 125,
  HAL_OP_LEAKY_RELU = 126,  /* (s) negative_slope */
  HAL_OP_ISINF = 127, HAL_OP_SQUARE = 128,

  /* binary, elementwise */
  HAL_OP_POW = 150, HAL_OP_MAXIMUM = 151, HAL_OP_MINIMUM = 152,
  HAL_OP_REMAINDER = 153,   /* sign of the divisor (Python %) */
  HAL_OP_FMOD = 154, HAL_OP_ATAN2 = 155,
  HAL_OP_EQ = 156, HAL_OP_NE = 157, HAL_OP_LT = 158, HAL_OP_LE = 159, HAL_OP_GT = 160, HAL_OP_GE = 161,
  HAL_OP_LOGICAL_AND = 162, HAL_OP_LOGICAL_OR = 163, HAL_OP_LOGICAL_XOR = 164,
  HAL_OP_BITWISE_AND = 165, HAL_OP_BITWISE_OR = 166, HAL_OP_BITWISE_XOR = 167,
  HAL_OP_CLAMP_MIN = 168,   /* max(a, b), NaN of a kept */
  HAL_OP_CLAMP_MAX = 169,   /* min(a, b), NaN of a kept */

  /* activation backward, elementwise: inputs (grad_output, x_or_y) */
  HAL_OP_THRESHOLD_BACKWARD = 180, /* grad if x > threshold else 0; (s) threshold */
  HAL_OP_GELU_BACKWARD = 181,      /* x is the input; (s) approximate */
  HAL_OP_SIGMOID_BACKWARD = 182,   /* y is the output */
  HAL_OP_TANH_BACKWARD = 183,      /* y is the output */
  HAL_OP_SILU_BACKWARD = 184,      /* x is the input */
  HAL_OP_LEAKY_RELU_BACKWARD = 185,/* x is the input; (s) negative_slope */

  /* ternary, elementwise */
  HAL_OP_WHERE = 200,       /* cond ? a : b; cond is bool */
  HAL_OP_CLAMP = 201,       /* min(max(a, lo), hi), NaN of a kept */
  HAL_OP_ADDCMUL = 202,     /* a + value * t1 * t2; (s) value */
  HAL_OP_ADDCDIV = 203,     /* a + value * t1 / t2; (s) value */
  HAL_OP_LERP = 204,        /* a + w * (b - a) */

  /* reductions: input and output have the same ndim; a dimension is reduced where the output's size
     is 1 and the input's is not. Output dtype is the caller's (sum of int8 -> int64, mean of f16 -> f16).
     Compute: float64 for f64, float32 for other floats, int64 for integers and bool. */
  HAL_OP_SUM = 300, HAL_OP_MEAN = 301, HAL_OP_PROD = 302, HAL_OP_AMAX = 303, HAL_OP_AMIN = 304,
  HAL_OP_ARGMAX = 305,      /* exactly one reduced dim; int64 output; first index on ties; NaN wins */
  HAL_OP_ARGMIN = 306,
  HAL_OP_VAR = 307,         /* (s) correction */
  HAL_OP_STD = 308,         /* (s) correction */

  /* normalization and losses */
  HAL_OP_SOFTMAX = 400,     /* inputs x; outputs y (same shape); (s) dim */
  HAL_OP_LOG_SOFTMAX = 401,
  HAL_OP_SOFTMAX_BACKWARD = 402,     /* inputs grad_y, y; outputs grad_x; (s) dim */
  HAL_OP_LOG_SOFTMAX_BACKWARD = 403, /* inputs grad_y, y; outputs grad_x; (s) dim */
  HAL_OP_LAYER_NORM = 410,  /* inputs x [M,N] contiguous, weight [N] | ABSENT, bias [N] | ABSENT;
                               outputs y [M,N], mean [M], rstd [M] (float32, or float64 for f64 x); (s) eps */
  HAL_OP_LAYER_NORM_BACKWARD = 411,  /* inputs dy [M,N], x [M,N], mean [M], rstd [M], weight [N] | ABSENT;
                                        outputs dx | ABSENT, dweight | ABSENT, dbias | ABSENT */
  HAL_OP_NLL_LOSS = 420,    /* inputs logp [N,C] (or [C]), target [N] (or []) int64, weight [C] | ABSENT;
                               outputs loss ([] for mean/sum, [N] for none), total_weight [];
                               (s) reduction (0 none, 1 mean, 2 sum), ignore_index */
  HAL_OP_NLL_LOSS_BACKWARD = 421,    /* inputs grad_loss, logp, target, weight | ABSENT, total_weight;
                                        outputs grad_logp (written in full); (s) reduction, ignore_index */
  HAL_OP_EMBEDDING_BACKWARD = 430,   /* inputs grad [N,D], indices [N] (int64 or int32);
                                        outputs grad_weight [V,D] (written in full); (s) padding_idx (-1 none) */

  /* indexing */
  HAL_OP_INDEX_SELECT = 500, /* inputs self, index [K] (int64/int32); outputs out; (s) dim.
                                out's shape is self's with dim resized to K */
  HAL_OP_GATHER = 501,       /* inputs self, index (same ndim); outputs out (index's shape); (s) dim */
  HAL_OP_SCATTER = 502,      /* inputs index, src (index's shape, or a scalar operand); outputs out
                                (holding self's values, updated in place); (s) dim, reduce (0 set, 1 add) */
  HAL_OP_INDEX_PUT = 503,    /* inputs index [K] int64, values [K, R...] (broadcast strides allowed);
                                outputs out [V, R...] updated in place at out[index[k]]; (s) accumulate */

  /* random numbers: counter-based, a function of (seed, offset, element index) only, so the same
     seed and offset give the same values on every run. Element i (in row-major order of the output's
     shape) draws from counter offset + i; the core then advances its offset by the element count. */
  HAL_OP_UNIFORM = 600,     /* outputs out; (s) from, to, seed, offset. Floating out: [from, to);
                               integer or bool out: integers in [from, to), `to` taken modulo 2^64 */
  HAL_OP_NORMAL = 601,      /* outputs out; (s) mean, std, seed, offset */
  HAL_OP_BERNOULLI = 602,   /* inputs p (out's shape, or a scalar operand); outputs out; (s) seed, offset */
  HAL_OP_RANDPERM = 603,    /* outputs out [n] int64; (s) seed, offset */

  /* multi-tensor (see MULTI-TENSOR above) */
  HAL_OP_FOREACH = 700      /* (s) inner elementwise op id, then each group's scalars */
};

/* Normalization over channels or groups, pooling and upsampling (900..999). Layouts, for every op here:
 *  - [N, C, S] (batch norm): x and y share one of two dense layouts, channels-first (strides C*S, S, 1) or
 *    channels-last (strides C*S, 1, C; what a channels_last tensor's [N, C, H*W] view has); S may be 1.
 *  - [N, C, H, W] (pooling, upsampling): contiguous or channels-last (strides H*W*C, 1, W*C, C); every
 *    tensor of one launch has the same one. Indices are int64 offsets into an input plane (h * W + w).
 *  - rows (group norm [N, C, HxW], RMS norm [M, N]): contiguous.
 * Storage types f32, f16, bf16, f64; x, y, dy and dx share one; [C]/[N] parameters (weight, bias,
 * running statistics) may be any floating type (f32 for f16/bf16 inputs, as PyTorch's mixed batch norm);
 * accumulation in float32 (float64 for f64). "acc" below is that type. */
enum {
  HAL_OP_BATCH_NORM = 900,  /* inputs x [N,C,S], weight [C] | ABSENT, bias [C] | ABSENT, running_mean [C] | ABSENT,
                               running_var [C] | ABSENT; outputs y, save_mean [C] acc, save_invstd [C] acc,
                               running_mean | ABSENT, running_var | ABSENT (training: the same tensors as the
                               inputs, updated in place: r = (1 - momentum) * r + momentum * batch statistic, the
                               variance unbiased); (s) training, momentum, eps. Training normalizes with the batch
                               statistics (biased variance), evaluation with the running ones (then required). */
  HAL_OP_BATCH_NORM_BACKWARD = 901, /* inputs dy, x [N,C,S], weight [C] | ABSENT, mean [C] acc, invstd [C] acc;
                                       outputs dx | ABSENT, dweight [C] | ABSENT, dbias [C] | ABSENT; (s) training
                                       (false: mean and invstd are constants, dx = dy * weight * invstd) */
  HAL_OP_GROUP_NORM = 910,  /* inputs x [N,C,HxW], weight [C] | ABSENT, bias [C] | ABSENT; outputs y [N,C,HxW],
                               mean [N*G], rstd [N*G] (any floating type); (s) groups G, eps */
  HAL_OP_GROUP_NORM_BACKWARD = 911, /* inputs dy, x [N,C,HxW], mean [N*G], rstd [N*G], weight [C] | ABSENT;
                                       outputs dx | ABSENT, dweight [C] | ABSENT, dbias [C] | ABSENT; (s) groups */
  HAL_OP_RMS_NORM = 920,    /* inputs x [M,N], weight [N] | ABSENT; outputs y [M,N], rstd [M] acc; (s) eps */
  HAL_OP_RMS_NORM_BACKWARD = 921,   /* inputs dy, x [M,N], rstd [M] acc, weight [N] | ABSENT;
                                       outputs dx | ABSENT, dweight [N] | ABSENT */
  HAL_OP_MAX_POOL2D = 930,  /* inputs x [N,C,H,W]; outputs y [N,C,OH,OW], indices (y's shape) int64;
                               (s) kH, kW, sH, sW, padH, padW, dilationH, dilationW. NaN wins, first index on ties */
  HAL_OP_MAX_POOL2D_BACKWARD = 931, /* inputs dy [N,C,OH,OW], indices; outputs dx [N,C,H,W] (written in full);
                                       (s) as the forward */
  HAL_OP_AVG_POOL2D = 932,  /* inputs x; outputs y; (s) kH, kW, sH, sW, padH, padW, count_include_pad,
                               divisor_override (0: none) */
  HAL_OP_AVG_POOL2D_BACKWARD = 933, /* inputs dy; outputs dx (written in full); (s) as the forward */
  HAL_OP_ADAPTIVE_AVG_POOL2D = 934, /* inputs x; outputs y [N,C,OH,OW]: window [floor(o*H/OH), ceil((o+1)*H/OH)) */
  HAL_OP_ADAPTIVE_AVG_POOL2D_BACKWARD = 935, /* inputs dy; outputs dx (written in full) */
  HAL_OP_ADAPTIVE_MAX_POOL2D = 936, /* inputs x; outputs y, indices int64 */
  HAL_OP_ADAPTIVE_MAX_POOL2D_BACKWARD = 937, /* inputs dy, indices; outputs dx (written in full) */
  HAL_OP_UPSAMPLE_NEAREST2D = 950,  /* inputs x [N,C,H,W]; outputs y [N,C,OH,OW]; (s) scale_h, scale_w (input pixels
                                       per output pixel, float32 values), exact (false: src = min(floor(o * scale),
                                       H - 1); true: min(floor((o + 0.5) * scale), H - 1)) */
  HAL_OP_UPSAMPLE_NEAREST2D_BACKWARD = 951,  /* inputs dy [N,C,OH,OW]; outputs dx [N,C,H,W]; (s) as the forward */
  HAL_OP_UPSAMPLE_BILINEAR2D = 952, /* inputs x; outputs y; (s) scale_h, scale_w (in the accumulation type:
                                       ATen's area_pixel_compute_scale), align_corners */
  HAL_OP_UPSAMPLE_BILINEAR2D_BACKWARD = 953  /* inputs dy; outputs dx (written in full); (s) as the forward */
};

/* Convolution (1000..1099), as PyTorch's (cross-correlation). Tensors have 3, 4 or 5 dims, [N, C, spatial...]
 * (1 to 3 spatial dims), all of one ndim and one storage type (f32, f16, bf16, f64; accumulation in f32, f64 for
 * f64). x and y are [N, C, S...] and [N, O, Q...] with any strides; w is [O, C / groups, K...], dense contiguous or
 * dense channels-last (strides C*K, 1, ..., C). Outputs are written in full. Scalars, for every op here: (s) groups,
 * allow_tf32 (f32 may use TF32 tensor cores, as torch.backends.cudnn.allow_tf32), then for each spatial dim d its
 * stride, padding (both sides) and dilation: Q[d] = (S[d] + 2 * pad[d] - dil[d] * (K[d] - 1) - 1) / stride[d] + 1.
 * A transposed convolution is BACKWARD_INPUT with its input as dy; bias and its gradient are the caller's. */
enum {
  HAL_OP_CONVOLUTION = 1000,                 /* inputs x, w; outputs y */
  HAL_OP_CONVOLUTION_BACKWARD_INPUT = 1001,  /* inputs dy (y's shape), w; outputs dx (x's shape) */
  HAL_OP_CONVOLUTION_BACKWARD_WEIGHT = 1002  /* inputs x, dy; outputs dw (w's shape) */
};

/* Ops of a standard training step that the families above do not cover (1200..1299): masks, positions,
 * gradient clipping and mixed precision's gradient scaling. */
enum {
  HAL_OP_ALL = 1200,        /* reduction (the reductions' shape rule): true where every reduced element is nonzero
                               (NaN counts as nonzero); input any dtype; output bool or uint8 (0/1); empty: true */
  HAL_OP_ANY = 1201,        /* reduction: true where some reduced element is nonzero; empty: false */
  HAL_OP_VECTOR_NORM = 1202,/* reduction: the ord-norm of the reduced elements, (sum |x|^ord)^(1/ord); (s) ord
                               (float64: inf max |x|, -inf min |x|, 0 count of nonzeros, any other value); floating
                               input and output, computed in float32 (float64 when either is f64) */
  HAL_OP_TRIL = 1210,       /* inputs x [..., R, C]; outputs y (x's shape, any strides; may be x itself):
                               y = x where column - row <= diagonal, else 0; (s) diagonal (int) */
  HAL_OP_TRIU = 1211,       /* y = x where column - row >= diagonal, else 0; (s) diagonal (int) */
  HAL_OP_CUMSUM = 1220,     /* inputs x; outputs y (x's shape, any strides; may be x itself): inclusive running sum
                               along dim; (s) dim. Computed as the reductions' compute type (float32 for f16/bf16/f32,
                               float64 for f64 on either side, int64 for integers and bool); y any dtype */
  HAL_OP_CUMPROD = 1221,    /* the same with products */
  HAL_OP_FOREACH_NORM = 1230, /* inputs G tensors (dense, each of any floating dtype); outputs G 0-dim tensors
                                 (floating): outputs[g] = VECTOR_NORM of every element of inputs[g]; (s) ord as
                                 VECTOR_NORM. One launch over all groups */
  HAL_OP_AMP_UNSCALE = 1240,  /* GradScaler's non-finite check and unscale: inputs inv_scale [1] (f32); outputs
                                 found_inf [1] (f32), then G tensors (dense, floating) multiplied by inv_scale in
                                 place; found_inf becomes 1 when some element of a tensor is inf or NaN, and is
                                 otherwise left as it was */
  HAL_OP_AMP_UPDATE_SCALE = 1241 /* GradScaler's scale update: inputs found_inf [1] (f32); outputs scale [1] (f32),
                                    growth_tracker [1] (int32), both updated in place: found_inf > 0: scale *=
                                    backoff, tracker = 0; else tracker + 1 == growth_interval: scale *= growth (kept
                                    when the product is not finite), tracker = 0; else tracker += 1;
                                    (s) growth_factor, backoff_factor, growth_interval (int) */,
  HAL_OP_SORT = 1250,       /* inputs x; outputs values (x's shape, x's dtype), indices (x's shape, int64): each
                               line along dim sorted, stably (equal values keep their order), NaN above every
                               number; values may be x itself; (s) dim, descending (bool). An adapter may refuse
                               long lines (NOT_SUPPORTED) */
  HAL_OP_TOPK = 1251,       /* inputs x; outputs values, indices (x's shape with k along dim): the k largest
                               (smallest) of each line in that order, ties by position, NaN above every number;
                               (s) dim, largest (bool) */
  HAL_OP_ATTENTION = 1260,  /* fused softmax attention: inputs q [B, Hq, L, D], k [B, Hk, S, D], v [B, Hk, S, D]
                               (Hq a multiple of Hk: query head h reads key/value head h / (Hq / Hk)), bias
                               (absent, or [B, Hq, L, S] of any strides, broadcast with stride 0: added to the
                               scores); outputs out [B, Hq, L, D], lse [B, Hq, L] (f32): out = softmax(scale * q k^T
                               + bias, causal mask) v, lse the log of each row's softmax denominator, +inf where
                               every key is masked (out 0 there); q, k, v, out of one dtype, last dim contiguous;
                               (s) scale (double), causal (bool: key j of query i is masked where j > i) */
  HAL_OP_ATTENTION_BACKWARD = 1261, /* inputs dout, q, k, v, out, lse, bias (as HAL_OP_ATTENTION's, bias may be
                               absent); outputs dq, dk, dv (the shapes of q, k, v); (s) scale, causal */
  HAL_OP_ATTENTION_SOFTMAX = 1262 /* the softmax of attention computed through GEMMs: inputs scores [B, H, L, S]
                               (dense; already scaled), bias (absent, or [B, H, L, S] of any strides, broadcast with
                               stride 0: added to the scores); outputs probs [B, H, L, S] (dense, the scores' dtype,
                               f32/f16/bf16; may be the scores themselves), lse [B, H, L] (f32, dense): probs =
                               softmax(scores + bias, causal mask) along S, lse the log of each row's denominator;
                               a row whose every key is masked gets probs 0 and lse +inf; (s) causal (bool) */
};

#endif /* TORCH_HAL_ADAPTER_OPS_H_ */
