#include "memory_stats.h"

#include <algorithm>
#include <utility>

namespace hal {
namespace {

// The fields of DeviceStats that are StatArrays, with their torch.cuda names.
const std::pair<const char*, StatArray DeviceStats::*> kArrays[] = {
    {"allocation", &DeviceStats::allocation},
    {"segment", &DeviceStats::segment},
    {"active", &DeviceStats::active},
    {"inactive_split", &DeviceStats::inactive_split},
    {"allocated_bytes", &DeviceStats::allocated_bytes},
    {"reserved_bytes", &DeviceStats::reserved_bytes},
    {"active_bytes", &DeviceStats::active_bytes},
    {"inactive_split_bytes", &DeviceStats::inactive_split_bytes},
    {"requested_bytes", &DeviceStats::requested_bytes},
};
const char* const kPoolNames[] = {"all", "small_pool", "large_pool"};

}  // namespace

std::map<std::string, int64_t> DeviceStats::to_map(int64_t max_split_size) const {
  std::map<std::string, int64_t> out;
  for (const auto& [name, member] : kArrays) {
    const StatArray& array = this->*member;
    for (size_t p = 0; p < 3; ++p) {
      const std::string prefix = std::string(name) + "." + kPoolNames[p] + ".";
      const Stat& s = array.pools[p];
      out[prefix + "current"] = s.current;
      out[prefix + "peak"] = s.peak;
      out[prefix + "allocated"] = s.allocated;
      out[prefix + "freed"] = s.freed;
    }
  }
  out["num_alloc_retries"] = num_alloc_retries;
  out["num_ooms"] = num_ooms;
  out["num_device_alloc"] = num_device_alloc;
  out["num_device_free"] = num_device_free;
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
  num_alloc_retries = num_ooms = num_device_alloc = num_device_free = 0;
}

}  // namespace hal
