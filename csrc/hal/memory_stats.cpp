#include "memory_stats.h"

#include <algorithm>
#include <utility>

namespace hal {
namespace {

// The fields of DeviceStats that are StatArrays, with their torch.cuda names.
#define HAL_STAT_ARRAY_ENTRY(name) {#name, &DeviceStats::name},
const std::pair<const char*, StatArray DeviceStats::*> kArrays[] = {HAL_DEVICE_STAT_ARRAYS(HAL_STAT_ARRAY_ENTRY)};
#undef HAL_STAT_ARRAY_ENTRY

}  // namespace

std::map<std::string, int64_t> DeviceStats::to_map() const {
  std::map<std::string, int64_t> out;
  for (const auto& [name, member] : kArrays) {
    const StatArray& array = this->*member;
    for (size_t p = 0; p < 3; ++p) {
      const std::string prefix = std::string(name) + "." + kStatPoolNames[p] + ".";
      const Stat& s = array.pools[p];
      out[prefix + "current"] = s.current;
      out[prefix + "peak"] = s.peak;
      out[prefix + "allocated"] = s.allocated;
      out[prefix + "freed"] = s.freed;
    }
  }
#define HAL_STAT_COUNTER_ENTRY(name) out[#name] = name;
  HAL_DEVICE_STAT_COUNTERS(HAL_STAT_COUNTER_ENTRY)
#undef HAL_STAT_COUNTER_ENTRY
  out["max_split_size"] = max_split_size;
  return out;
}

void DeviceStats::reset_peak() {
  for (const auto& entry : kArrays) {
    for (Stat& s : (this->*entry.second).pools) s.peak = s.current;
  }
}

void DeviceStats::reset_accumulated() {
  for (const auto& entry : kArrays) {
    for (Stat& s : (this->*entry.second).pools) s.allocated = s.freed = 0;
  }
#define HAL_RESET_STAT_COUNTER(name) name = 0;
  HAL_DEVICE_STAT_COUNTERS(HAL_RESET_STAT_COUNTER)
#undef HAL_RESET_STAT_COUNTER
}

}  // namespace hal
