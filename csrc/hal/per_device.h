// Core-internal: lazily created per-device state, indexed by hal device index. Devices are only ever
// appended to the registry, so an entry, once created, stays valid for the life of the process.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "hal/device_registry.h"

namespace hal {

template <typename T>
class PerDevice {
 public:
  // Validates `device` (InvalidArgument with the registry's message) and returns its state.
  T& get(int device) {
    // The hot path, without a lock: a state exists only for a device that was valid when it was made, and
    // devices are never removed.
    if (device >= 0 && device < static_cast<int>(items_.size())) {
      if (T* ready = items_[device].load(std::memory_order_acquire)) return *ready;
    }
    return create(device);
  }

  // Calls fn on every state created so far (not under this container's lock, so fn may block).
  void for_each(const std::function<void(T&)>& fn) {
    std::vector<T*> snapshot;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& item : items_) {
        if (T* p = item.load(std::memory_order_acquire)) snapshot.push_back(p);
      }
    }
    for (T* item : snapshot) fn(*item);
  }

 private:
  // Out of line: the hot path above stays a few instructions wherever it is inlined.
  [[gnu::noinline]] T& create(int device) {
    DeviceRegistry::instance().device(device);  // throws for an index that does not exist
    std::lock_guard<std::mutex> lock(mutex_);
    if (T* ready = items_[device].load(std::memory_order_relaxed)) return *ready;
    T* made = new T(device);  // owned for the life of the process, like the device it belongs to
    items_[device].store(made, std::memory_order_release);
    return *made;
  }

  std::mutex mutex_;  // serializes creation
  std::array<std::atomic<T*>, DeviceRegistry::kMaxDevices> items_{};
};

// A process-lifetime PerDevice<T>; leaked on purpose, like the registry it refers to.
template <typename T>
PerDevice<T>& per_device_state() {
  static auto* states = new PerDevice<T>();
  return *states;
}

}  // namespace hal
