// Core-internal: PYTORCH_HAL_ALLOC_CONF, parsed once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hal {

struct AllocatorConfig {
  // Blocks at least this large are never split, and small requests never take them (against
  // fragmentation). SIZE_MAX: no limit.
  size_t max_split_size = SIZE_MAX;
  // When reserved memory passes this fraction of the allowed memory, cached free segments are released
  // before a new segment is requested. 0: off.
  double garbage_collection_threshold = 0.0;
  // Requests are rounded up to one of this many steps between two powers of two. 0: off.
  size_t roundup_power2_divisions = 0;
};

// Parses "key:value,key:value". Throws hal::Error(BadConfig) naming the bad entry and the keys.
AllocatorConfig parse_allocator_config(const char* text);

// The configuration of this process (PYTORCH_HAL_ALLOC_CONF at first use).
const AllocatorConfig& allocator_config();

}  // namespace hal
