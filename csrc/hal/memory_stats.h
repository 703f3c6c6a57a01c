// The counters behind memory_stats() and device_stats() (caching_allocator.h), named as torch.cuda.memory_stats()
// names them.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace hal {

struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;  // accumulated increases
  int64_t freed = 0;      // accumulated decreases

  // Inline, and one per direction (no test of the sign): the caching allocator updates a dozen of these per
  // allocation and per free.
  void increase(int64_t amount) {
    current += amount;
    allocated += amount;
    peak = std::max(peak, current);
  }
  void decrease(int64_t amount) {
    current -= amount;
    freed += amount;
  }
};

// The pools each statistic is kept over, in this order (c10's StatType order).
inline constexpr const char* kStatPoolNames[] = {"all", "small_pool", "large_pool"};

// Each statistic over "all", "small_pool", "large_pool".
struct StatArray {
  std::array<Stat, 3> pools;
  void increase(bool large, int64_t amount) {
    pools[0].increase(amount);
    pools[large ? 2 : 1].increase(amount);
  }
  void decrease(bool large, int64_t amount) {
    pools[0].decrease(amount);
    pools[large ? 2 : 1].decrease(amount);
  }
  int64_t current() const { return pools[0].current; }
};

// The one list of DeviceStats' fields, named as torch.cuda.memory_stats() and c10's DeviceStats name them:
// X(name) for each StatArray, then for each plain counter. The fields below, to_map()'s keys and the glue's
// c10 statistics (c10::CachingDeviceAllocator::DeviceStats, whose fields have the same names) all come from it.
#define HAL_DEVICE_STAT_ARRAYS(X)                                                                        \
  X(allocation) X(segment) X(active) X(inactive_split) X(allocated_bytes) X(reserved_bytes) X(active_bytes) \
      X(inactive_split_bytes) X(requested_bytes)
#define HAL_DEVICE_STAT_COUNTERS(X) X(num_alloc_retries) X(num_ooms) X(num_device_alloc) X(num_device_free)

struct DeviceStats {
#define HAL_STAT_ARRAY_FIELD(name) StatArray name;
  HAL_DEVICE_STAT_ARRAYS(HAL_STAT_ARRAY_FIELD)
#undef HAL_STAT_ARRAY_FIELD
#define HAL_STAT_COUNTER_FIELD(name) int64_t name = 0;
  HAL_DEVICE_STAT_COUNTERS(HAL_STAT_COUNTER_FIELD)
#undef HAL_STAT_COUNTER_FIELD
  // Not a counter: the max_split_size setting in bytes (-1: none) when the statistics were read
  // (device_stats() sets it; the allocator's own counters leave it 0).
  int64_t max_split_size = 0;

  // "allocated_bytes.all.current", ..., "num_ooms", ..., "max_split_size".
  std::map<std::string, int64_t> to_map() const;
  void reset_peak();
  void reset_accumulated();
};

}  // namespace hal
