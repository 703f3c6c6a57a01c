// Core-internal: the counters behind memory_stats(), named as torch.cuda.memory_stats() names them.
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
