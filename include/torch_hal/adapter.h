/*
 * torch_hal adapter ABI: the one contract between the HAL core and a device adapter.
 *
 * An adapter is a shared library that exports a single C symbol:
 *
 *     const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version);
 *
 * The loader passes the highest ABI version it understands; the adapter returns its function table
 * (or NULL if it cannot serve that version). Everything here is plain C so that adapters can be built
 * by any toolchain, outside this repository, against this header alone.
 *
 * Rules every adapter follows:
 *  - Fixed-width integers for every enum and count; every struct carries its own size first.
 *  - Handles are opaque pointers owned by the adapter.
 *  - Every function returns a hal_status_t. On failure the adapter keeps a per-thread message (with the
 *    driver's own error name where there is one) that get_last_error() returns.
 *  - The core validates arguments once (device index in range, non-null outputs, sizes); adapters may
 *    assume valid arguments.
 *  - A missing vendor runtime or device is not a load failure: initialize() returns
 *    HAL_STATUS_UNAVAILABLE and get_last_error() says why and what to install.
 *  - A NULL hal_stream_t means the device's default stream.
 */
#ifndef TORCH_HAL_ADAPTER_H_
#define TORCH_HAL_ADAPTER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Major changes break the table layout; minor versions only append fields or functions (after the
 * table's reserved slots), which are optional: see HAL_ADAPTER_HAS below.
 *   1.1  operator conventions (scalar operands, absent tensors, HAL_OP_FOREACH)
 *   1.2  stream_native_handle (the vendor runtime's handle of a hal stream)
 *   1.3  collectives (hal_collectives_t: NCCL, RCCL)
 *   1.4  inter-process memory sharing: ipc_export, ipc_open, ipc_close */
#define HAL_ABI_VERSION_MAJOR 1u
#define HAL_ABI_VERSION_MINOR 4u
#define HAL_ABI_VERSION ((HAL_ABI_VERSION_MAJOR << 16) | HAL_ABI_VERSION_MINOR)
#define HAL_ABI_MAJOR_OF(v) ((uint32_t)(v) >> 16)
#define HAL_ABI_MINOR_OF(v) ((uint32_t)(v)&0xFFFFu)

#define HAL_ADAPTER_ENTRY_SYMBOL "hal_adapter_query"

#if defined(_WIN32)
#define HAL_ADAPTER_EXPORT __declspec(dllexport)
#else
#define HAL_ADAPTER_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------------------------- */
/* Status codes                                                                                    */
/* ---------------------------------------------------------------------------------------------- */
typedef int32_t hal_status_t;
enum {
  HAL_STATUS_SUCCESS = 0,
  HAL_STATUS_INVALID_ARGUMENT = 1,
  HAL_STATUS_OUT_OF_DEVICE_MEMORY = 2, /* device memory exhausted: never confused with host memory */
  HAL_STATUS_OUT_OF_HOST_MEMORY = 3,
  HAL_STATUS_NOT_SUPPORTED = 4,        /* the adapter does not implement this function or op */
  HAL_STATUS_UNAVAILABLE = 5,          /* runtime library or hardware absent */
  HAL_STATUS_NOT_READY = 6,            /* query functions: work still pending */
  HAL_STATUS_DEVICE_ERROR = 7,         /* the driver reported an error */
  HAL_STATUS_INTERNAL_ERROR = 8
};

/* ---------------------------------------------------------------------------------------------- */
/* Device properties                                                                               */
/* ---------------------------------------------------------------------------------------------- */
typedef uint32_t hal_device_flags_t;
enum {
  HAL_DEVICE_FLAG_FP16 = 1u << 0,
  HAL_DEVICE_FLAG_BF16 = 1u << 1,
  HAL_DEVICE_FLAG_FP8 = 1u << 2,
  HAL_DEVICE_FLAG_FP64 = 1u << 3,
  /* The host CPU can read and write device memory directly (host reference device, unified memory). */
  HAL_DEVICE_FLAG_HOST_ACCESSIBLE = 1u << 4,
  HAL_DEVICE_FLAG_PEER_ACCESS = 1u << 5
};

typedef struct hal_device_properties {
  uint32_t struct_size;          /* sizeof(hal_device_properties_t), set by the caller */
  char name[256];                /* marketing name, e.g. "NVIDIA H100 80GB HBM3" */
  char vendor[64];               /* lower-case vendor key: "nvidia", "amd", "intel", "host", ... */
  char arch_name[64];            /* "sm_90", "gfx942", "x86_64", ... */
  char pci_bus_id[32];           /* "0000:3b:00.0"; empty when not a PCI device */
  char uuid[40];                 /* textual UUID; empty when unknown */
  uint64_t total_memory_bytes;
  int32_t compute_units;         /* SMs, CUs, EUs, or host cores */
  int32_t compute_capability_major;
  int32_t compute_capability_minor;
  int32_t max_threads_per_block;
  uint64_t shared_memory_per_block_bytes;
  int32_t clock_rate_khz;
  int32_t memory_clock_rate_khz;
  int32_t memory_bus_width_bits;
  hal_device_flags_t flags;
  double peak_fp32_tflops;
  double peak_bf16_tflops;
  double memory_bandwidth_gbps;  /* GB/s */
  uint64_t reserved[16];
} hal_device_properties_t;

/* ---------------------------------------------------------------------------------------------- */
/* Tensors for kernels: laid out exactly as DLPack's DLTensor (v0.8+), so either can be passed.   */
/* ---------------------------------------------------------------------------------------------- */
typedef struct hal_dtype {
  uint8_t code;  /* 0 int, 1 uint, 2 float, 4 bfloat, 6 bool (DLPack codes) */
  uint8_t bits;
  uint16_t lanes;
} hal_dtype_t;

enum { HAL_DTYPE_INT = 0, HAL_DTYPE_UINT = 1, HAL_DTYPE_FLOAT = 2, HAL_DTYPE_BFLOAT = 4, HAL_DTYPE_BOOL = 6 };

typedef struct hal_dl_device {
  int32_t device_type; /* DLPack device type of the memory */
  int32_t device_id;
} hal_dl_device_t;

typedef struct hal_tensor {
  void* data;            /* start of the allocation (or aligned base); add byte_offset */
  hal_dl_device_t device;
  int32_t ndim;
  hal_dtype_t dtype;
  int64_t* shape;
  int64_t* strides;      /* in elements; never NULL when passed by the core */
  uint64_t byte_offset;
} hal_tensor_t;

/* Scalars passed to kernels: the core converts Python numbers to the op's compute type. */
typedef struct hal_scalar {
  int32_t kind; /* 0 double, 1 int64, 2 bool */
  int32_t reserved;
  union {
    double f;
    int64_t i;
    uint8_t b;
  } value;
} hal_scalar_t;

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
                               Each matrix has unit stride in one of its last two dims. */

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

/* ---------------------------------------------------------------------------------------------- */
/* Opaque handles and copy directions                                                              */
/* ---------------------------------------------------------------------------------------------- */
typedef struct hal_stream_impl* hal_stream_t;
typedef struct hal_event_impl* hal_event_t;

typedef int32_t hal_copy_kind_t;
enum {
  HAL_COPY_HOST_TO_DEVICE = 0,
  HAL_COPY_DEVICE_TO_HOST = 1,
  HAL_COPY_DEVICE_TO_DEVICE = 2
};

typedef uint32_t hal_event_flags_t;
enum { HAL_EVENT_FLAG_TIMING = 1u << 0 };

/* ---------------------------------------------------------------------------------------------- */
/* Inter-process memory sharing (ABI 1.4, optional)                                                */
/* ---------------------------------------------------------------------------------------------- */
/* What another process needs to map a device allocation of this one. `bytes` is what the vendor runtime
 * names the memory by (a cudaIpcMemHandle_t on NVIDIA, 64 bytes); `fd`, when not -1, is a file descriptor
 * that must reach the other process by descriptor passing (SCM_RIGHTS, as multiprocessing sends them), for
 * memory that a file names (memfd on the host device). Equal `bytes` always name the same allocation, so a
 * process may open a handle once and share the mapping. */
#define HAL_IPC_HANDLE_BYTES 64
typedef struct hal_ipc_handle {
  uint32_t struct_size;      /* sizeof(hal_ipc_handle_t), set by the caller */
  uint32_t num_bytes;        /* how many of `bytes` are meaningful */
  int32_t fd;                /* -1 when `bytes` alone name the memory */
  uint32_t reserved0;
  uint64_t allocation_size;  /* bytes of the allocation (the exporting core sets it), mapped whole by ipc_open */
  uint8_t bytes[HAL_IPC_HANDLE_BYTES];
  uint64_t reserved[4];
} hal_ipc_handle_t;

/* ---------------------------------------------------------------------------------------------- */
/* The function table                                                                              */
/* ---------------------------------------------------------------------------------------------- */
typedef struct hal_adapter {
  /* header */
  uint32_t struct_size;     /* sizeof(hal_adapter_t) as the adapter was built */
  uint32_t abi_version;     /* HAL_ABI_VERSION the adapter was built against */
  const char* name;         /* short key: "host", "nvidia", "amd", "intel", "example_asic" */
  const char* description;
  uint64_t reserved_header[4];

  /* lifecycle: initialize() is called once before anything else; UNAVAILABLE is a normal answer */
  hal_status_t (*initialize)(void);
  void (*shutdown)(void);
  const char* (*get_last_error)(void); /* per-thread, valid until the next call on this thread */

  /* discovery */
  hal_status_t (*device_count)(int32_t* count);
  hal_status_t (*get_device_properties)(int32_t device, hal_device_properties_t* props);
  hal_status_t (*get_memory_info)(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes);

  /* memory: raw device memory for the core's caching allocator, and pinned host memory */
  hal_status_t (*malloc_device)(int32_t device, uint64_t size, void** ptr);
  hal_status_t (*free_device)(int32_t device, void* ptr);
  hal_status_t (*malloc_host)(uint64_t size, void** ptr);
  hal_status_t (*free_host)(void* ptr);
  hal_status_t (*memset_async)(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream);

  /* copies, asynchronous in the order of the stream */
  hal_status_t (*memcpy_async)(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                               hal_stream_t stream);
  /* device-to-device across two devices of this adapter; NOT_SUPPORTED lets the core stage via host */
  hal_status_t (*memcpy_peer_async)(int32_t dst_device, void* dst, int32_t src_device, const void* src,
                                    uint64_t size, hal_stream_t stream);

  /* streams */
  hal_status_t (*stream_create)(int32_t device, int32_t priority, hal_stream_t* stream);
  hal_status_t (*stream_destroy)(int32_t device, hal_stream_t stream);
  hal_status_t (*stream_synchronize)(int32_t device, hal_stream_t stream);
  hal_status_t (*stream_query)(int32_t device, hal_stream_t stream); /* SUCCESS or NOT_READY */
  hal_status_t (*stream_wait_event)(int32_t device, hal_stream_t stream, hal_event_t event);

  /* events */
  hal_status_t (*event_create)(int32_t device, hal_event_flags_t flags, hal_event_t* event);
  hal_status_t (*event_destroy)(int32_t device, hal_event_t event);
  hal_status_t (*event_record)(int32_t device, hal_event_t event, hal_stream_t stream);
  hal_status_t (*event_query)(int32_t device, hal_event_t event); /* SUCCESS or NOT_READY */
  hal_status_t (*event_synchronize)(int32_t device, hal_event_t event);
  hal_status_t (*event_elapsed_ms)(int32_t device, hal_event_t start, hal_event_t end, float* ms);

  /* device-wide synchronization: every stream of the device */
  hal_status_t (*device_synchronize)(int32_t device);

  /* native kernels (optional: NULL or NOT_SUPPORTED sends the op to the core's fallback) */
  hal_status_t (*op_supported)(int32_t device, hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors);
  hal_status_t (*launch_op)(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                            int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs,
                            const hal_scalar_t* scalars, int32_t num_scalars);

  void* reserved[16];

  /* ABI 1.2 (optional; read only where struct_size covers it). The vendor runtime's own handle of a stream
   * (a cudaStream_t, a hipStream_t), the default stream's (NULL hal_stream_t) included, for code that
   * launches on hal's streams through the vendor's API: torch.compile's Triton kernels, DLPack's stream
   * exchange. Adapters without vendor streams leave it NULL. */
  hal_status_t (*stream_native_handle)(int32_t device, hal_stream_t stream, void** handle);

  /* ABI 1.3 (read only where struct_size covers it): collectives across processes, or NULL. */
  const struct hal_collectives* collectives;

  /* ---- ABI 1.4: optional, present when HAL_ADAPTER_HAS(table, ipc_export) ---------------------- */
  /* Inter-process sharing of device memory. `base` is exactly a pointer malloc_device returned (the core
   * shares a block of its caching allocator as its allocation plus an offset). ipc_export fills `handle`;
   * its fd, if any, stays owned by the adapter and valid while the allocation lives (the caller duplicates
   * it to send it). ipc_open maps in this process an allocation another process exported; the caller keeps
   * ownership of handle->fd. The mapping is freed by ipc_close, never by free_device. NOT_SUPPORTED from
   * ipc_export (memory that cannot be shared) makes the caller send the bytes by value instead. */
  hal_status_t (*ipc_export)(int32_t device, void* base, hal_ipc_handle_t* handle);
  hal_status_t (*ipc_open)(int32_t device, const hal_ipc_handle_t* handle, void** base);
  hal_status_t (*ipc_close)(int32_t device, void* base);
} hal_adapter_t;

/* Whether `table` has the optional function `member`: a table carries its own size, so an adapter built
 * against an older minor version (a smaller table) is read only as far as it goes. */
#define HAL_ADAPTER_HAS(table, member)                                                      \
  ((table)->struct_size >= offsetof(hal_adapter_t, member) + sizeof((table)->member) && \
   (table)->member != NULL)

/* ---------------------------------------------------------------------------------------------- */
/* Collectives (optional, ABI 1.3): what torch.distributed's "hal" backend runs on an adapter's      */
/* devices, through the vendor's own library (NCCL, RCCL, oneCCL), never a transport of the adapter's. */
/* ---------------------------------------------------------------------------------------------- */
/* A communicator joins one device of each of `nranks` processes. Rank 0 calls get_unique_id, the core
 * sends the bytes to every rank (through torch.distributed's store) and each calls comm_init_rank.
 * Operations are asynchronous in the order of `stream`, on device memory of the communicator's device;
 * counts are in elements of `dtype`; a send and its receive buffer may be the same pointer (in place).
 * Between group_start and group_end, operations of one thread form one fused launch (all_to_all as
 * sends and receives to every peer). comm_get_async_error returns SUCCESS, NOT_READY while an operation
 * is still running with no error, or DEVICE_ERROR (a peer died, the network failed) with the library's
 * message; after an error or a timeout the core calls comm_abort, which must not block on peers. */
typedef struct hal_comm_impl* hal_comm_t;
#define HAL_COMM_UNIQUE_ID_BYTES 128
typedef struct hal_comm_unique_id {
  char bytes[HAL_COMM_UNIQUE_ID_BYTES];
} hal_comm_unique_id_t;

typedef int32_t hal_reduce_op_t;
enum { HAL_REDUCE_SUM = 0, HAL_REDUCE_PROD = 1, HAL_REDUCE_MAX = 2, HAL_REDUCE_MIN = 3, HAL_REDUCE_AVG = 4 };

typedef struct hal_collectives {
  uint32_t struct_size;  /* sizeof(hal_collectives_t) as the adapter was built */
  uint32_t reserved0;
  /* e.g. "NCCL 2.21.5 (libnccl.so.2)"; filled by available() */
  const char* (*engine_name)(void);
  /* SUCCESS when the library is present (loads it on first call); UNAVAILABLE with the reason otherwise */
  hal_status_t (*available)(int32_t device);
  hal_status_t (*get_unique_id)(int32_t device, hal_comm_unique_id_t* id);
  hal_status_t (*comm_init_rank)(int32_t device, const hal_comm_unique_id_t* id, int32_t nranks, int32_t rank,
                                 hal_comm_t* comm);
  hal_status_t (*comm_destroy)(hal_comm_t comm);
  hal_status_t (*comm_abort)(hal_comm_t comm);
  hal_status_t (*comm_get_async_error)(hal_comm_t comm);
  hal_status_t (*all_reduce)(hal_comm_t comm, const void* send, void* recv, uint64_t count, hal_dtype_t dtype,
                             hal_reduce_op_t op, hal_stream_t stream);
  hal_status_t (*broadcast)(hal_comm_t comm, const void* send, void* recv, uint64_t count, hal_dtype_t dtype,
                            int32_t root, hal_stream_t stream);
  hal_status_t (*reduce)(hal_comm_t comm, const void* send, void* recv, uint64_t count, hal_dtype_t dtype,
                         hal_reduce_op_t op, int32_t root, hal_stream_t stream);
  /* recv holds nranks * send_count elements, rank r's at r * send_count */
  hal_status_t (*all_gather)(hal_comm_t comm, const void* send, void* recv, uint64_t send_count, hal_dtype_t dtype,
                             hal_stream_t stream);
  /* send holds nranks * recv_count elements; rank r receives the reduction of chunk r */
  hal_status_t (*reduce_scatter)(hal_comm_t comm, const void* send, void* recv, uint64_t recv_count,
                                 hal_dtype_t dtype, hal_reduce_op_t op, hal_stream_t stream);
  hal_status_t (*send)(hal_comm_t comm, const void* buf, uint64_t count, hal_dtype_t dtype, int32_t peer,
                       hal_stream_t stream);
  hal_status_t (*recv)(hal_comm_t comm, void* buf, uint64_t count, hal_dtype_t dtype, int32_t peer,
                       hal_stream_t stream);
  hal_status_t (*group_start)(void);
  hal_status_t (*group_end)(void);
  void* reserved[8];
} hal_collectives_t;

typedef const hal_adapter_t* (*hal_adapter_query_fn)(uint32_t max_abi_version);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TORCH_HAL_ADAPTER_H_ */
