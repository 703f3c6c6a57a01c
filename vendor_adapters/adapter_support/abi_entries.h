// adapter.h's table entries as an in-tree adapter implements them, declared once, each with the very function type
// of its hal_adapter_t member (a definition that drifts from the ABI no longer compiles). An adapter's devices.h,
// memory.h, streams_events.h and ops.h expand the groups they implement inside the adapter's own namespace; the
// example plugin, which builds against adapter.h alone, spells its declarations out.
#pragma once

#include <type_traits>

#include "torch_hal/adapter.h"

// `name` declared as a function of the type of hal_adapter_t's member `name`.
#define HAL_ABI_ENTRY(name) std::remove_pointer_t<decltype(hal_adapter_t::name)> name

// Each group is a list of names, X(name) for each, so that code can both declare the entries (the *_ENTRIES macros
// below) and fill a table from them (the SPIR-V shell's adapter_table.cpp) without spelling the names again.

// Lifecycle and discovery (devices.h).
#define HAL_ABI_DEVICE_NAMES(X) X(initialize) X(shutdown) X(device_count) X(get_device_properties) X(get_memory_info)

// Device and pinned host memory, copies and fills on streams (memory.h).
#define HAL_ABI_MEMORY_NAMES(X) \
  X(malloc_device) X(free_device) X(malloc_host) X(free_host) X(memset_async) X(memcpy_async) X(memcpy_peer_async)

// Streams, events and device-wide synchronization (streams_events.h).
#define HAL_ABI_STREAM_EVENT_NAMES(X)                                                                             \
  X(stream_create) X(stream_destroy) X(stream_synchronize) X(stream_query) X(stream_wait_event) X(event_create)  \
  X(event_destroy) X(event_record) X(event_query) X(event_synchronize) X(event_elapsed_ms) X(device_synchronize)

// Native ops (ops.h).
#define HAL_ABI_OP_NAMES(X) X(op_supported) X(launch_op)

// Inter-process memory (ABI 1.4): the GPU shell's ipc.h, the host adapter's ipc.h.
#define HAL_ABI_IPC_NAMES(X) X(ipc_export) X(ipc_open) X(ipc_close)

// A group's declarations, expanded where the adapter declares its entries: `HAL_ABI_DEVICE_ENTRIES;`. The
// static_assert takes the caller's semicolon.
#define HAL_ABI_DECLARE_ENTRY(name) HAL_ABI_ENTRY(name);
#define HAL_ABI_DEVICE_ENTRIES HAL_ABI_DEVICE_NAMES(HAL_ABI_DECLARE_ENTRY) static_assert(true)
#define HAL_ABI_MEMORY_ENTRIES HAL_ABI_MEMORY_NAMES(HAL_ABI_DECLARE_ENTRY) static_assert(true)
#define HAL_ABI_STREAM_EVENT_ENTRIES HAL_ABI_STREAM_EVENT_NAMES(HAL_ABI_DECLARE_ENTRY) static_assert(true)
#define HAL_ABI_OP_ENTRIES HAL_ABI_OP_NAMES(HAL_ABI_DECLARE_ENTRY) static_assert(true)
#define HAL_ABI_IPC_ENTRIES HAL_ABI_IPC_NAMES(HAL_ABI_DECLARE_ENTRY) static_assert(true)
