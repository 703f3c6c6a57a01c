// The host reference device's lifecycle and discovery: initialize() reads the settings below and makes the
// simulated devices (adapter_state.h); their count, properties and memory.
//
// Environment:
//   TORCH_HAL_HOST_DEVICES  number of simulated devices (default 1)
//   TORCH_HAL_HOST_MEMORY   capacity of each device: bytes, or with a K/M/G/T suffix such as "8G"
//                           (default: half of the physical memory)
//   TORCH_HAL_HOST_ACCESSIBLE  "0" reports the memory as not host-accessible, so the glue treats this
//                           device as it treats a discrete GPU (copies, the counted CPU fallback): the way to
//                           test that path on a machine without one. Default "1".
// Unset or empty means the default; any other value that does not parse strictly makes initialize() fail
// with a message naming the variable and what it accepts (torch_hal.adapters() shows it as the reason).
#include "devices.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "adapter_state.h"
#include "device_properties.h"

namespace host_adapter {

AdapterState* g_state = nullptr;  // between the first initialize() and the last shutdown()

namespace {

std::mutex g_lifecycle_mutex;
int g_initializations = 0;         // initialize()/shutdown() pairs may nest (one library, several users)

// A setting of this adapter: nullptr when unset or empty (empty means the default, as for the core's
// variables in csrc/hal/environment.h).
const char* setting(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

// Whether `text` is a non-empty run of decimal digits and nothing else.
bool all_digits(const char* text) {
  if (!*text) return false;
  for (const char* p = text; *p; ++p) {
    if (!std::isdigit(static_cast<unsigned char>(*p))) return false;
  }
  return true;
}

// A device count: plain digits, at most `max`. strtol alone would take " 3", "+3" and "3 " (and atoi
// "3abc"), so that a typo would silently mean something.
bool parse_count(const char* text, long max, long* out) {
  if (!all_digits(text) || std::strlen(text) > 9) return false;
  *out = std::strtol(text, nullptr, 10);
  return *out <= max;
}

// "8G", "512M", "1.5T", "8GiB", "64KB", "1073741824": digits with an optional fraction, then an optional
// K/M/G/T (binary multiples, optionally followed by "i"), then an optional "B". Nothing else: no sign,
// space, exponent, hexadecimal or trailing text, which strtod alone would take (" 8G", "0x10", "1e3").
bool parse_bytes(const char* text, uint64_t* out) {
  const char* p = text;
  const auto skip_digits = [&p] {
    const char* start = p;
    while (std::isdigit(static_cast<unsigned char>(*p))) ++p;
    return p > start;
  };
  if (!skip_digits()) return false;
  if (*p == '.' && (++p, !skip_digits())) return false;
  const std::string number(text, p);
  double scale = 1;
  switch (std::toupper(static_cast<unsigned char>(*p))) {
    case 'K': scale = 1024.0; break;
    case 'M': scale = 1024.0 * 1024; break;
    case 'G': scale = 1024.0 * 1024 * 1024; break;
    case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
    default: scale = 0; break;
  }
  if (scale != 0) {
    ++p;
    if (*p == 'i' || *p == 'I') ++p;
  } else {
    scale = 1;
  }
  if (*p == 'B' || *p == 'b') ++p;
  if (*p != '\0') return false;
  const double bytes = std::round(std::strtod(number.c_str(), nullptr) * scale);
  // "99999999999999999999999G": not representable (the cast of it would be undefined), so not a size.
  if (!std::isfinite(bytes) || bytes >= 18446744073709551616.0 /* 2^64 */) return false;
  *out = static_cast<uint64_t>(bytes);
  return *out > 0;
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    // x86 says "model name", some ARM kernels "Model" or "Hardware".
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0 || line.rfind("Hardware", 0) == 0) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      if (!v.empty()) return v;
    }
  }
  return "";
}

void copy_string(char* dst, size_t capacity, const std::string& src) {
  std::snprintf(dst, capacity, "%s", src.c_str());
}

}  // namespace

// ---- lifecycle --------------------------------------------------------------------------------

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }

  long count = 1;
  if (const char* env = setting("TORCH_HAL_HOST_DEVICES")) {
    // 127: the core numbers at most that many devices in a process (hal::DeviceRegistry::kMaxDevices,
    // bounded by PyTorch's 8-bit device index).
    if (!parse_count(env, 127, &count)) {
      return fail(HAL_STATUS_INVALID_ARGUMENT,
                  std::string("TORCH_HAL_HOST_DEVICES='") + env +
                      "' is not a device count: use a whole number between 0 and 127 (plain digits), or unset it "
                      "for 1");
    }
  }
  uint64_t capacity = 0;
  if (const char* env = setting("TORCH_HAL_HOST_MEMORY")) {
    if (!parse_bytes(env, &capacity)) {
      return fail(HAL_STATUS_INVALID_ARGUMENT, std::string("TORCH_HAL_HOST_MEMORY='") + env +
                                                   "' is not a size: use a positive number of bytes, optionally with a K/M/G/T "
                                                   "suffix, e.g. 8G or 512M, or unset it for half the RAM");
    }
  } else {
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    capacity = (pages > 0 && page_size > 0) ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 2
                                            : uint64_t{4} << 30;
  }

  auto state = std::make_unique<AdapterState>();
  if (const char* env = setting("TORCH_HAL_HOST_ACCESSIBLE")) {
    if (std::strcmp(env, "0") != 0 && std::strcmp(env, "1") != 0) {
      return fail(HAL_STATUS_INVALID_ARGUMENT, std::string("TORCH_HAL_HOST_ACCESSIBLE='") + env +
                                                   "' must be 0 or 1 (or unset, which is 1)");
    }
    state->host_accessible = std::strcmp(env, "1") == 0;
  }
  struct utsname uts {};
  state->arch = uname(&uts) == 0 ? uts.machine : "unknown";
  state->cpu_model = cpu_model_name();
  if (state->cpu_model.empty()) state->cpu_model = state->arch;
  for (long i = 0; i < count; ++i) {
    state->devices.push_back(std::make_unique<HostDevice>());
    state->devices.back()->capacity = capacity;
  }
  g_state = state.release();
  g_initializations = 1;
  return HAL_STATUS_SUCCESS;
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  delete g_state;  // joins every worker, frees what is still allocated
  g_state = nullptr;
}

const char* get_last_error() { return hal_abi_boundary::thread_error().c_str(); }

// ---- discovery --------------------------------------------------------------------------------

hal_status_t device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  // Fill no more than the caller's struct holds: a core built against an older minor may pass less.
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  copy_string(p.name, sizeof(p.name), "Host reference device (" + g_state->cpu_model + ")");
  copy_string(p.vendor, sizeof(p.vendor), "host");
  copy_string(p.arch_name, sizeof(p.arch_name), g_state->arch);
  // Stable per index, recognisable ("686f7374" is "host" in hex).
  std::snprintf(p.uuid, sizeof(p.uuid), "686f7374-0000-4000-8000-%012d", static_cast<int>(device));
  p.total_memory_bytes = dev(device).capacity;
  p.compute_units = static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency()));
  p.max_threads_per_block = 1024;
  p.shared_memory_per_block_bytes = 48 * 1024;
  p.flags = HAL_DEVICE_FLAG_FP16 | HAL_DEVICE_FLAG_BF16 | HAL_DEVICE_FLAG_FP64;
  if (g_state->host_accessible) p.flags |= HAL_DEVICE_FLAG_HOST_ACCESSIBLE;
  // Peak throughput and bandwidth stay 0 (unknown): they are measured elsewhere, not guessed here.
  return hal_adapter_support::answer_properties(p, props);
}

hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  *free_bytes = d.capacity - d.used;
  *total_bytes = d.capacity;
  return HAL_STATUS_SUCCESS;
}

}  // namespace host_adapter
