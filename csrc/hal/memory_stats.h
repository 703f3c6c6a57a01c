// Core-internal: the counters behind memory_stats(), named as torch.cuda.memory_stats() names them.
#pragma once

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

  // Inline: the caching allocator updates a dozen of these per allocation and per free.
  void update(int64_t delta) {
    current += delta;
    if (delta > 0) allocated += delta;
    else freed -= delta;
    if (current > peak) peak = current;
  }
};

// Each statistic over "all", "small_pool", "large_pool".
struct StatArray {
  std::array<Stat, 3> pools;
  void update(bool large, int64_t delta) {
    pools[0].update(delta);
    pools[large ? 2 : 1].update(delta);
  }
  int64_t current() const { return pools[0].current; }
};

struct DeviceStats {
  StatArray allocation, segment, active, inactive_split;
  StatArray allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
  int64_t num_alloc_retries = 0;
  int64_t num_ooms = 0;
  int64_t num_device_alloc = 0;
  int64_t num_device_free = 0;

  std::map<std::string, int64_t> to_map(int64_t max_split_size) const;
  void reset_peak();
  void reset_accumulated();
};

}  // namespace hal
