// adapter.h's table entries as an in-tree adapter implements them, declared once, each with the very function type
// of its hal_adapter_t member (a definition that drifts from the ABI no longer compiles). An adapter's devices.h,
// memory.h, streams_events.h and ops.h expand the groups they implement inside the adapter's own namespace; the
// example plugin, which builds against adapter.h alone, spells its declarations out.
#pragma once

#include <type_traits>

#include "torch_hal/adapter.h"

// `name` declared as a function of the type of hal_adapter_t's member `name`.
#define HAL_ABI_ENTRY(name) std::remove_pointer_t<decltype(hal_adapter_t::name)> name

// Lifecycle and discovery (devices.h).
#define HAL_ABI_DEVICE_ENTRIES                                                                                    \
  HAL_ABI_ENTRY(initialize);                                                                                      \
  HAL_ABI_ENTRY(shutdown);                                                                                        \
  HAL_ABI_ENTRY(device_count);                                                                                    \
  HAL_ABI_ENTRY(get_device_properties);                                                                           \
  HAL_ABI_ENTRY(get_memory_info)

// Device and pinned host memory, copies and fills on streams (memory.h).
#define HAL_ABI_MEMORY_ENTRIES                                                                                    \
  HAL_ABI_ENTRY(malloc_device);                                                                                   \
  HAL_ABI_ENTRY(free_device);                                                                                     \
  HAL_ABI_ENTRY(malloc_host);                                                                                     \
  HAL_ABI_ENTRY(free_host);                                                                                       \
  HAL_ABI_ENTRY(memset_async);                                                                                    \
  HAL_ABI_ENTRY(memcpy_async);                                                                                    \
  HAL_ABI_ENTRY(memcpy_peer_async)

// Streams, events and device-wide synchronization (streams_events.h).
#define HAL_ABI_STREAM_EVENT_ENTRIES                                                                              \
  HAL_ABI_ENTRY(stream_create);                                                                                   \
  HAL_ABI_ENTRY(stream_destroy);                                                                                  \
  HAL_ABI_ENTRY(stream_synchronize);                                                                              \
  HAL_ABI_ENTRY(stream_query);                                                                                    \
  HAL_ABI_ENTRY(stream_wait_event);                                                                               \
  HAL_ABI_ENTRY(event_create);                                                                                    \
  HAL_ABI_ENTRY(event_destroy);                                                                                   \
  HAL_ABI_ENTRY(event_record);                                                                                    \
  HAL_ABI_ENTRY(event_query);                                                                                     \
  HAL_ABI_ENTRY(event_synchronize);                                                                               \
  HAL_ABI_ENTRY(event_elapsed_ms);                                                                                \
  HAL_ABI_ENTRY(device_synchronize)

// Native ops (ops.h).
#define HAL_ABI_OP_ENTRIES                                                                                        \
  HAL_ABI_ENTRY(op_supported);                                                                                    \
  HAL_ABI_ENTRY(launch_op)
