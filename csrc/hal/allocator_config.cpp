#include "allocator_config.h"

#include <cctype>
#include <cstdlib>
#include <string>

#include "hal/environment.h"
#include "hal/error.h"

namespace hal {
namespace {

constexpr const char* kAcceptedKeys =
    "Expected comma-separated key:value pairs with keys max_split_size_mb (a whole number of MiB, 2 to 1048576), "
    "garbage_collection_threshold (a decimal between 0 and 1), roundup_power2_divisions (a power of 2 up to 64)";

[[noreturn]] void bad_entry(const std::string& entry, const std::string& why) {
  throw Error(ErrorCode::BadConfig, "PYTORCH_HAL_ALLOC_CONF: '" + entry + "': " + why + ". " + kAcceptedKeys);
}

// Plain digits only: no sign, exponent, fraction or expression ("2e13", "2^40" are refused, not misread).
size_t parse_whole(const std::string& entry, const std::string& value, size_t max) {
  bool digits = !value.empty() && value.size() <= 9;
  for (char c : value) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits) bad_entry(entry, "'" + value + "' is not a whole number");
  const size_t n = std::stoul(value);
  if (n > max) bad_entry(entry, "'" + value + "' is larger than " + std::to_string(max));
  return n;
}

// A plain decimal such as 0.6 (digits and one point): no nan, inf or exponent.
double parse_decimal(const std::string& entry, const std::string& value) {
  if (!is_plain_decimal(value)) bad_entry(entry, "'" + value + "' is not a decimal number such as 0.6");
  return std::strtod(value.c_str(), nullptr);
}

}  // namespace

AllocatorConfig parse_allocator_config(const char* text) {
  AllocatorConfig config;
  if (!text) return config;
  std::string s(text);
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string entry = s.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    size_t colon = entry.find(':');
    if (colon == std::string::npos) bad_entry(entry, "missing ':'");
    const std::string key = entry.substr(0, colon);
    const std::string value = entry.substr(colon + 1);
    if (key == "max_split_size_mb") {
      const size_t mib = parse_whole(entry, value, size_t{1} << 20);  // 1 TiB: more is no real block size
      if (mib <= 1) bad_entry(entry, "needs a whole number of MiB greater than 1");
      config.max_split_size = mib << 20;
    } else if (key == "garbage_collection_threshold") {
      const double v = parse_decimal(entry, value);
      if (v <= 0.0 || v >= 1.0) bad_entry(entry, "needs a value between 0 and 1");
      config.garbage_collection_threshold = v;
    } else if (key == "roundup_power2_divisions") {
      const size_t n = parse_whole(entry, value, 64);
      if (n < 1 || (n & (n - 1)) != 0) bad_entry(entry, "needs a power of 2");
      config.roundup_power2_divisions = n;
    } else if (key == "expandable_segments" || key == "pinned_use_cuda_host_register" ||
               key == "pinned_num_register_threads" || key == "backend" || key == "release_lock_on_cudamalloc" ||
               key == "pinned_use_background_threads" || key == "graph_capture_record_stream_reuse") {
      bad_entry(entry, "'" + key + "' is a PYTORCH_CUDA_ALLOC_CONF option that hal's caching allocator does not "
                       "implement; remove it");
    } else {
      bad_entry(entry, "unknown key '" + key + "'");
    }
  }
  return config;
}

const AllocatorConfig& allocator_config() {
  // A parse error propagates and initialization is retried on the next call, so every allocation
  // reports the bad setting rather than silently running with defaults.
  static const AllocatorConfig config = parse_allocator_config(std::getenv("PYTORCH_HAL_ALLOC_CONF"));
  return config;
}

}  // namespace hal
