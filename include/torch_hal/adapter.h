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

/* Major changes break the table layout; minor versions only append fields or functions. */
#define HAL_ABI_VERSION_MAJOR 1u
#define HAL_ABI_VERSION_MINOR 0u
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

/* Operator ids for native kernels. Numbering is part of the ABI: append only. */
typedef int32_t hal_op_t;
enum {
  HAL_OP_FILL = 1,
  HAL_OP_COPY = 2,          /* strided copy with dtype conversion, device-local */
  HAL_OP_ADD = 10,          /* out = a + alpha * b, broadcasting */
  HAL_OP_SUB = 11,
  HAL_OP_MUL = 12,
  HAL_OP_DIV = 13,
  HAL_OP_RELU = 20,
  HAL_OP_MATMUL = 40        /* out = a @ b, 2-D */
  /* Later ABI minors append reductions, softmax, layer norm, embedding, gather/scatter, random. */
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
} hal_adapter_t;

typedef const hal_adapter_t* (*hal_adapter_query_fn)(uint32_t max_abi_version);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TORCH_HAL_ADAPTER_H_ */
