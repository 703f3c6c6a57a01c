// Pinned host memory from adapters, and the registry of live pinned ranges behind is_pinned().
#include <map>
#include <mutex>
#include <string>

#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "hal/error.h"

namespace hal {
namespace {

struct PinnedRange {
  size_t size;
  int device;  // whose adapter allocated it, and so must free it
};

// Larger requests are no real size (the core validates sizes, adapters may assume sane ones), and a
// range registered with such a size would make is_pinned() true for most of the address space.
constexpr size_t kMaxPinnedBytes = size_t{1} << 60;

std::mutex g_pinned_mutex;
std::map<uintptr_t, PinnedRange>& pinned_ranges() {
  static auto* ranges = new std::map<uintptr_t, PinnedRange>();  // leaked: freed blocks may come at exit
  return *ranges;
}

}  // namespace

void* allocate_pinned(int device, size_t nbytes) {
  const Device& d = DeviceRegistry::instance().device(device);
  if (nbytes == 0) return nullptr;
  void* ptr = nullptr;
  if (nbytes > kMaxPinnedBytes) {
    throw Error(ErrorCode::OutOfHostMemory, "allocate_pinned(hal:" + std::to_string(device) + "): " +
                                                std::to_string(nbytes) + " bytes of pinned host memory cannot exist");
  }
  throw_on_failure(d.table(), d.table().malloc_host(nbytes, &ptr), "malloc_host");
  try {
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    pinned_ranges()[reinterpret_cast<uintptr_t>(ptr)] = PinnedRange{nbytes, device};
  } catch (...) {
    d.table().free_host(ptr);
    throw;
  }
  return ptr;
}

void free_pinned(int device, void* ptr) {
  if (!ptr) return;
  PinnedRange range;
  {
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    auto it = pinned_ranges().find(reinterpret_cast<uintptr_t>(ptr));
    if (it == pinned_ranges().end()) {
      throw Error(ErrorCode::InvalidArgument, "free_pinned(hal:" + std::to_string(device) +
                                                  "): pointer was not returned by allocate_pinned");
    }
    range = it->second;
    pinned_ranges().erase(it);
  }
  const Device& d = DeviceRegistry::instance().device(range.device);
  throw_on_failure(d.table(), d.table().free_host(ptr), "free_host");
}

bool is_pinned(const void* ptr) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(g_pinned_mutex);
  auto it = pinned_ranges().upper_bound(p);
  if (it == pinned_ranges().begin()) return false;
  --it;
  return p < it->first + it->second.size;
}

}  // namespace hal
