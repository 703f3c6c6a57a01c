"""include/torch_hal/adapter.h in ctypes, so that tests can drive an adapter library directly (its kernels,
before any glue calls them). Field order and types follow the header exactly."""
import ctypes
from ctypes import POINTER, c_char_p, c_double, c_float, c_int32, c_int64, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

HAL_STATUS_SUCCESS, HAL_STATUS_INVALID_ARGUMENT, HAL_STATUS_NOT_SUPPORTED = 0, 1, 4
HAL_OP_ADD, HAL_OP_SUB, HAL_OP_MUL, HAL_OP_RELU, HAL_OP_MATMUL = 10, 11, 12, 20, 40
HAL_COPY_HOST_TO_DEVICE, HAL_COPY_DEVICE_TO_HOST = 0, 1
HAL_DEVICE_FLAG_HOST_ACCESSIBLE = 1 << 4


class hal_dtype_t(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class hal_dl_device_t(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class hal_tensor_t(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", hal_dl_device_t), ("ndim", c_int32), ("dtype", hal_dtype_t),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class _scalar_value(ctypes.Union):
    _fields_ = [("f", c_double), ("i", c_int64), ("b", c_uint8)]


class hal_scalar_t(ctypes.Structure):
    _fields_ = [("kind", c_int32), ("reserved", c_int32), ("value", _scalar_value)]


class hal_device_properties_t(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("name", ctypes.c_char * 256), ("vendor", ctypes.c_char * 64),
                ("arch_name", ctypes.c_char * 64), ("pci_bus_id", ctypes.c_char * 32), ("uuid", ctypes.c_char * 40),
                ("total_memory_bytes", c_uint64), ("compute_units", c_int32), ("compute_capability_major", c_int32),
                ("compute_capability_minor", c_int32), ("max_threads_per_block", c_int32),
                ("shared_memory_per_block_bytes", c_uint64), ("clock_rate_khz", c_int32),
                ("memory_clock_rate_khz", c_int32), ("memory_bus_width_bits", c_int32), ("flags", c_uint32),
                ("peak_fp32_tflops", c_double), ("peak_bf16_tflops", c_double), ("memory_bandwidth_gbps", c_double),
                ("reserved", c_uint64 * 16)]


S = c_int32  # hal_status_t
_F = ctypes.CFUNCTYPE


class hal_adapter_t(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_uint32), ("abi_version", c_uint32), ("name", c_char_p), ("description", c_char_p),
        ("reserved_header", c_uint64 * 4),
        ("initialize", _F(S)), ("shutdown", _F(None)), ("get_last_error", _F(c_char_p)),
        ("device_count", _F(S, POINTER(c_int32))),
        ("get_device_properties", _F(S, c_int32, POINTER(hal_device_properties_t))),
        ("get_memory_info", _F(S, c_int32, POINTER(c_uint64), POINTER(c_uint64))),
        ("malloc_device", _F(S, c_int32, c_uint64, POINTER(c_void_p))),
        ("free_device", _F(S, c_int32, c_void_p)),
        ("malloc_host", _F(S, c_uint64, POINTER(c_void_p))),
        ("free_host", _F(S, c_void_p)),
        ("memset_async", _F(S, c_int32, c_void_p, c_int32, c_uint64, c_void_p)),
        ("memcpy_async", _F(S, c_int32, c_void_p, c_void_p, c_uint64, c_int32, c_void_p)),
        ("memcpy_peer_async", _F(S, c_int32, c_void_p, c_int32, c_void_p, c_uint64, c_void_p)),
        ("stream_create", _F(S, c_int32, c_int32, POINTER(c_void_p))),
        ("stream_destroy", _F(S, c_int32, c_void_p)),
        ("stream_synchronize", _F(S, c_int32, c_void_p)),
        ("stream_query", _F(S, c_int32, c_void_p)),
        ("stream_wait_event", _F(S, c_int32, c_void_p, c_void_p)),
        ("event_create", _F(S, c_int32, c_uint32, POINTER(c_void_p))),
        ("event_destroy", _F(S, c_int32, c_void_p)),
        ("event_record", _F(S, c_int32, c_void_p, c_void_p)),
        ("event_query", _F(S, c_int32, c_void_p)),
        ("event_synchronize", _F(S, c_int32, c_void_p)),
        ("event_elapsed_ms", _F(S, c_int32, c_void_p, c_void_p, POINTER(c_float))),
        ("device_synchronize", _F(S, c_int32)),
        ("op_supported", _F(S, c_int32, c_int32, POINTER(hal_tensor_t), c_int32)),
        ("launch_op", _F(S, c_int32, c_int32, c_void_p, POINTER(hal_tensor_t), c_int32, POINTER(hal_tensor_t), c_int32,
                         POINTER(hal_scalar_t), c_int32)),
        ("reserved", c_void_p * 16),
    ]


def load_adapter_table(path) -> hal_adapter_t:
    """The function table of the adapter library at `path` (kept loaded for the process)."""
    lib = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
    lib.hal_adapter_query.restype = POINTER(hal_adapter_t)
    lib.hal_adapter_query.argtypes = [c_uint32]
    table = lib.hal_adapter_query((1 << 16) | 0).contents
    table._library = lib  # the table lives inside the library
    return table
