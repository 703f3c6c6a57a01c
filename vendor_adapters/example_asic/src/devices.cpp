// example_asic's lifecycle and discovery.
//
// Environment:
//   EXAMPLE_ASIC_DEVICES  number of simulated chips (default 1)
//   EXAMPLE_ASIC_MEMORY   memory of each chip: bytes, or with a K/M/G suffix such as 512M (default 512M)
#include "devices.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "adapter_state.h"

namespace example_asic {
namespace {

std::mutex g_lifecycle_mutex;
int g_initializations = 0;

// Settings are plain digits: strtoul alone would also take " 8M", "+8M" and, wrapped around, "-1".
bool starts_with_digit(const char* text) { return std::isdigit(static_cast<unsigned char>(*text)) != 0; }

bool parse_bytes(const char* text, uint64_t* out) {
  if (!starts_with_digit(text)) return false;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || value == 0) return false;
  uint64_t scale = 1;
  if (*end == 'K' || *end == 'k') scale = 1ull << 10, ++end;
  else if (*end == 'M' || *end == 'm') scale = 1ull << 20, ++end;
  else if (*end == 'G' || *end == 'g') scale = 1ull << 30, ++end;
  if (*end != '\0' || value > (1ull << 46) / scale) return false;  // at most 64 TiB of address space
  *out = value * scale;
  return true;
}

}  // namespace

// ---- lifecycle ---------------------------------------------------------------------------------

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }
  long count = 1;
  if (const char* env = std::getenv("EXAMPLE_ASIC_DEVICES")) {
    char* end = nullptr;
    count = std::strtol(env, &end, 10);
    if (!starts_with_digit(env) || *end != '\0' || count > 64) {
      return fail(HAL_STATUS_INVALID_ARGUMENT,
                  std::string("EXAMPLE_ASIC_DEVICES='") + env + "' is not a device count between 0 and 64");
    }
  }
  uint64_t memory = 512ull << 20;
  if (const char* env = std::getenv("EXAMPLE_ASIC_MEMORY")) {
    if (!parse_bytes(env, &memory)) {
      return fail(HAL_STATUS_INVALID_ARGUMENT,
                  std::string("EXAMPLE_ASIC_MEMORY='") + env + "' is not a size: use bytes or a K/M/G suffix, e.g. 512M");
    }
  }
  return guarded("initialize", [&]() -> hal_status_t {
    auto state = std::make_unique<State>();
    for (long i = 0; i < count; ++i) state->devices.push_back(std::make_unique<DeviceArena>(memory));
    g_state = std::move(state);
    g_initializations = 1;
    return HAL_STATUS_SUCCESS;
  });
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  g_state.reset();  // unmaps every chip's memory
}

const char* get_last_error() { return t_last_error.c_str(); }

// ---- discovery ---------------------------------------------------------------------------------

hal_status_t device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  std::snprintf(p.name, sizeof(p.name), "Example ASIC (simulated)");
  std::snprintf(p.vendor, sizeof(p.vendor), "custom_asic");
  std::snprintf(p.arch_name, sizeof(p.arch_name), "example-asic-v1");
  std::snprintf(p.uuid, sizeof(p.uuid), "a51c0000-0000-4000-8000-%012d", static_cast<int>(device));
  p.total_memory_bytes = arena(device).capacity();
  p.compute_units = 1;
  p.max_threads_per_block = 1;
  // Not host-accessible: its memory is the chip's own; the core must copy, never dereference.
  p.flags = 0;
  // Fill no more than the caller's struct holds: a core built against an older minor may pass less.
  const uint32_t size = props->struct_size < sizeof(p) ? props->struct_size : static_cast<uint32_t>(sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  *total_bytes = arena(device).capacity();
  *free_bytes = *total_bytes - arena(device).used();
  return HAL_STATUS_SUCCESS;
}

}  // namespace example_asic
