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

#include "torch_hal/adapter_ops.h"

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

/* Operator ids for native kernels and their conventions: adapter_ops.h. */


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
