// The process-wide list of adapters and the devices they expose as hal:0..N-1.
//
// Numbering rule (stable for one machine and environment): devices are sorted by vendor preference
// (nvidia, amd, intel, other plugins by name, host last), then by PCI bus id, then by the adapter's
// own index. HAL_VISIBLE_DEVICES, when set, is a comma-separated list of indices into that sorted list
// (or of "vendor:local" pairs such as "host:0"), and keeps only those, in the order given.
// Devices added later (register_adapter) are appended, so existing indices never change.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hal/adapter_library.h"
#include "torch_hal/adapter.h"

namespace hal {

struct Device {
  int index;                          // the N of hal:N
  AdapterLibrary* adapter;            // owned by the registry
  int local_index;                    // the adapter's own device number
  hal_device_properties_t properties;

  const hal_adapter_t& table() const { return adapter->table(); }
  bool host_accessible() const { return (properties.flags & HAL_DEVICE_FLAG_HOST_ACCESSIBLE) != 0; }
};

// What the numbering rule looks at for one device; order_devices() is the rule itself, callable
// without the process-wide registry (tests, tools).
struct DeviceSortKey {
  std::string vendor;        // properties.vendor, e.g. "nvidia"; "host" sorts last
  std::string adapter_name;  // orders plugins of unknown vendors
  std::string pci_bus_id;
  int local_index;
};

// Sorts `devices` by the numbering rule, then applies `visible` (the value of HAL_VISIBLE_DEVICES, or
// nullptr when unset). Returns positions into `devices`, in hal:N order. Entries of `visible` that name
// no device, or name one already chosen, are skipped and described in `*problems` when given.
std::vector<size_t> order_devices(const std::vector<DeviceSortKey>& devices, const char* visible,
                                  std::vector<std::string>* problems = nullptr);

class DeviceRegistry {
 public:
  // The registry; the first call loads every adapter (see adapter_loader.h) from `package_lib_dir`.
  // Later calls ignore the argument.
  static DeviceRegistry& instance(const std::string& package_lib_dir);
  static DeviceRegistry& instance();  // the hot-path form: no argument to build

  // Devices live in a fixed table so that device(), on every op's path, reads without a lock. 127 because
  // PyTorch holds device indices and counts in a c10::DeviceIndex, an int8_t: hal:128 would wrap to
  // hal:-128, and a count of 128 to -128.
  static constexpr int kMaxDevices = 127;

  int device_count() const { return device_count_.load(std::memory_order_acquire); }
  // Throws InvalidArgument naming the index and how many devices exist, e.g.
  // "hal:5 is not a valid device: 1 hal device is available (hal:0). Pick an index in 0..0, or check
  // HAL_VISIBLE_DEVICES / torch_hal.adapters()". Without any device, the message gives each adapter's
  // reason and what HAL_VISIBLE_DEVICES left out.
  // Inline: every op, allocation and stream lookup validates its device here.
  const Device& device(int index) const {
    if (index >= 0 && index < device_count()) return *devices_[index];
    throw_invalid_device(index);
  }

  // Every adapter found, loaded or not, in load order.
  std::vector<const AdapterLibrary*> adapters() const;

  // Loads one more adapter library at run time (a plugin). Its devices are appended. Throws AdapterLoad
  // with the file name and the reason when the library is broken; Unavailable when it loads but has no
  // usable device. Returns the indices of the new devices. The other devices keep working either way.
  std::vector<int> register_adapter_library(const std::string& path);

  // Same, for a table that the caller keeps alive through `keep_alive` (Python backends).
  std::vector<int> register_adapter_table(const hal_adapter_t* table, const std::string& origin,
                                          std::shared_ptr<void> keep_alive);

 private:
  explicit DeviceRegistry(const std::string& package_lib_dir);
  std::vector<int> add_devices_of(AdapterLibrary* adapter);

  // Called with mutex_ held: gives `device` the next index and publishes it to lock-free readers.
  int append_device(std::unique_ptr<Device> device);
  // Lines for the error of a process without devices: every adapter's state and reason, and what
  // HAL_VISIBLE_DEVICES left out.
  std::string why_no_device() const;
  [[noreturn]] void throw_invalid_device(int index) const;  // device()'s error, out of its inline path

  mutable std::mutex mutex_;  // guards adapters_ and appending devices
  std::vector<std::unique_ptr<AdapterLibrary>> adapters_;
  std::array<std::unique_ptr<Device>, kMaxDevices> devices_;  // written once per slot, then only read
  std::atomic<int> device_count_{0};                          // release on append, acquire on read
  std::vector<std::string> problems_;  // start-up: HAL_VISIBLE_DEVICES entries ignored, devices left out
};

}  // namespace hal
