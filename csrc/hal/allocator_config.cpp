#include "allocator_config.h"

#include <cstdlib>
#include <string>

#include "hal/error.h"

namespace hal {
namespace {

[[noreturn]] void bad_entry(const std::string& entry, const std::string& why) {
  throw Error(ErrorCode::InvalidArgument,
              "PYTORCH_HAL_ALLOC_CONF: '" + entry + "': " + why +
                  ". Expected comma-separated key:value pairs with keys max_split_size_mb (integer > 1), "
                  "garbage_collection_threshold (0 < value < 1), roundup_power2_divisions (power of 2)");
}

double parse_number(const std::string& entry, const std::string& value) {
  char* end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0') bad_entry(entry, "'" + value + "' is not a number");
  return v;
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
    std::string key = entry.substr(0, colon);
    double value = parse_number(entry, entry.substr(colon + 1));
    if (key == "max_split_size_mb") {
      if (value <= 1 || value != static_cast<double>(static_cast<int64_t>(value))) {
        bad_entry(entry, "needs an integer number of MiB greater than 1");
      }
      config.max_split_size = static_cast<size_t>(value) << 20;
    } else if (key == "garbage_collection_threshold") {
      if (value <= 0.0 || value >= 1.0) bad_entry(entry, "needs a value between 0 and 1");
      config.garbage_collection_threshold = value;
    } else if (key == "roundup_power2_divisions") {
      auto n = static_cast<size_t>(value);
      if (value < 1 || static_cast<double>(n) != value || (n & (n - 1)) != 0) bad_entry(entry, "needs a power of 2");
      config.roundup_power2_divisions = n;
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
