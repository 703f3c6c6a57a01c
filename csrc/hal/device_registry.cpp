#include "hal/device_registry.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hal/adapter_loader.h"
#include "hal/error.h"

namespace hal {
namespace {

// Reads the properties of every device of a Loaded adapter. A device whose properties cannot be read
// takes the whole adapter out of service: a half-working adapter is worse than a clear reason.
std::vector<std::unique_ptr<Device>> probe_devices(AdapterLibrary* adapter) {
  std::vector<std::unique_ptr<Device>> devices;
  if (adapter->state() != AdapterState::Loaded) return devices;
  // A count no process could number is a broken answer, not a request to probe billions of devices.
  if (adapter->device_count() > DeviceRegistry::kMaxDevices) {
    adapter->mark_unavailable(adapter->path() + ": device_count() reported " + std::to_string(adapter->device_count()) +
                              " devices, more than the " + std::to_string(DeviceRegistry::kMaxDevices) +
                              " torch_hal can number: the adapter is broken, or its device-count setting is wrong");
    return devices;
  }
  const hal_adapter_t& t = adapter->table();
  for (int local = 0; local < adapter->device_count(); ++local) {
    auto d = std::make_unique<Device>();
    d->index = -1;
    d->adapter = adapter;
    d->local_index = local;
    std::memset(&d->properties, 0, sizeof(d->properties));
    d->properties.struct_size = sizeof(d->properties);
    hal_status_t st = t.get_device_properties(local, &d->properties);
    if (st != HAL_STATUS_SUCCESS) {
      const char* why = t.get_last_error();
      adapter->mark_unavailable(adapter->path() + ": get_device_properties(" + std::to_string(local) +
                                ") failed: " + status_name(st) + (why && *why ? std::string(": ") + why : ""));
      return {};
    }
    // Adapters write fixed-size C strings; never trust them to be terminated.
    d->properties.name[sizeof(d->properties.name) - 1] = '\0';
    d->properties.vendor[sizeof(d->properties.vendor) - 1] = '\0';
    d->properties.arch_name[sizeof(d->properties.arch_name) - 1] = '\0';
    d->properties.pci_bus_id[sizeof(d->properties.pci_bus_id) - 1] = '\0';
    d->properties.uuid[sizeof(d->properties.uuid) - 1] = '\0';
    devices.push_back(std::move(d));
  }
  return devices;
}

DeviceSortKey sort_key(const Device& d) {
  return DeviceSortKey{d.properties.vendor, d.adapter->name(), d.properties.pci_bus_id, d.local_index};
}

}  // namespace

DeviceRegistry& DeviceRegistry::instance(const std::string& package_lib_dir) {
  // Deliberately never destroyed: tensors, streams and cached blocks owned elsewhere (the glue, Python)
  // may still call into adapters during static destruction at exit, as with PyTorch's CUDA allocator.
  static DeviceRegistry* registry = new DeviceRegistry(package_lib_dir);
  return *registry;
}

DeviceRegistry& DeviceRegistry::instance() {
  static DeviceRegistry& registry = instance(std::string());
  return registry;
}

int DeviceRegistry::append_device(std::unique_ptr<Device> device) {
  const int index = device_count_.load(std::memory_order_relaxed);
  if (index >= kMaxDevices) {
    throw Error(ErrorCode::InvalidArgument, "torch_hal supports at most " + std::to_string(kMaxDevices) +
                                                " devices; use HAL_VISIBLE_DEVICES to choose which");
  }
  device->index = index;
  devices_[index] = std::move(device);
  device_count_.store(index + 1, std::memory_order_release);
  return index;
}

DeviceRegistry::DeviceRegistry(const std::string& package_lib_dir) {
  for (const std::string& path : find_adapter_libraries(package_lib_dir)) {
    std::unique_ptr<AdapterLibrary> lib = AdapterLibrary::open(path);
    if (lib->state() == AdapterState::Loaded) {
      for (const auto& earlier : adapters_) {
        if (earlier->state() == AdapterState::Loaded && earlier->name() == lib->name()) {
          lib->mark_unavailable("duplicate of " + earlier->path());
          break;
        }
      }
    }
    adapters_.push_back(std::move(lib));
  }

  std::vector<std::unique_ptr<Device>> all;
  for (const auto& lib : adapters_) {
    for (auto& d : probe_devices(lib.get())) all.push_back(std::move(d));
  }
  std::vector<DeviceSortKey> keys;
  for (const auto& d : all) keys.push_back(sort_key(*d));
  const char* visible = std::getenv("HAL_VISIBLE_DEVICES");
  std::vector<size_t> chosen = order_devices(keys, visible, &problems_);
  for (size_t pos : chosen) {
    if (device_count() == kMaxDevices) {
      problems_.push_back(std::to_string(chosen.size() - kMaxDevices) + " devices were left out: torch_hal numbers at "
                          "most " + std::to_string(kMaxDevices) + "; use HAL_VISIBLE_DEVICES to choose which");
      break;
    }
    append_device(std::move(all[pos]));
  }
  if (visible && device_count() == 0 && !all.empty()) {
    problems_.push_back("HAL_VISIBLE_DEVICES='" + std::string(visible) + "' keeps none of the " +
                        std::to_string(all.size()) + " devices found: list indices 0.." + std::to_string(all.size() - 1) +
                        " (or vendor:index pairs such as host:0), or unset it");
  }
  // No exception at start-up (import torch_hal must not fail), but a typo must not pass silently: said
  // now on stderr, and again in the error of the first use of a device that is not there. An empty
  // HAL_VISIBLE_DEVICES hides every device on purpose (as CUDA_VISIBLE_DEVICES="" does): no start-up noise.
  if (!(visible && *visible == '\0')) {
    for (const std::string& p : problems_) std::fprintf(stderr, "torch_hal: %s\n", p.c_str());
  }
}

void DeviceRegistry::throw_invalid_device(int index) const {
  const int n = device_count();
  std::string msg = "hal:" + std::to_string(index) + " is not a valid device: ";
  if (n == 0) {
    msg += "no hal device is available." + why_no_device();
  } else {
    msg += std::to_string(n) + (n == 1 ? " hal device is available (hal:0)" :
                                          " hal devices are available (hal:0..hal:" + std::to_string(n - 1) + ")");
    msg += ". Pick an index in 0.." + std::to_string(n - 1) + ", or check HAL_VISIBLE_DEVICES / torch_hal.adapters()";
  }
  throw Error(ErrorCode::InvalidArgument, msg);
}

std::string DeviceRegistry::why_no_device() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string why;
  for (const auto& a : adapters_) {
    why += "\n  adapter " + a->name() + " (" + adapter_state_name(a->state()) + "): ";
    why += a->state() == AdapterState::Loaded ? "loaded, reports " + std::to_string(a->device_count()) + " devices"
                                               : a->reason();
  }
  if (adapters_.empty()) {
    why += "\n  no adapter library was found: TORCH_HAL_ADAPTERS, TORCH_HAL_ADAPTER_PATH and torch_hal/lib are empty";
  }
  for (const std::string& p : problems_) why += "\n  " + p;
  return why + "\nFix what is said above (torch_hal.adapters() lists the same).";
}

std::vector<const AdapterLibrary*> DeviceRegistry::adapters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const AdapterLibrary*> out;
  for (const auto& a : adapters_) out.push_back(a.get());
  return out;
}

std::vector<int> DeviceRegistry::add_devices_of(AdapterLibrary* adapter) {
  // Called with mutex_ held. Duplicates and device-less adapters raise, but stay listed in adapters().
  if (adapter->state() == AdapterState::Loaded) {
    for (const auto& earlier : adapters_) {
      if (earlier.get() != adapter && earlier->state() == AdapterState::Loaded && earlier->name() == adapter->name()) {
        adapter->mark_unavailable("duplicate of " + earlier->path());
        throw Error(ErrorCode::Unavailable, adapter->path() + ": adapter '" + adapter->name() +
                                                "' is already loaded from " + earlier->path());
      }
    }
  }
  if (adapter->state() == AdapterState::Broken) throw Error(ErrorCode::AdapterLoad, adapter->reason());
  if (adapter->state() == AdapterState::Unavailable) throw Error(ErrorCode::Unavailable, adapter->reason());

  std::vector<std::unique_ptr<Device>> found = probe_devices(adapter);
  if (found.empty()) {
    throw Error(ErrorCode::Unavailable,
                adapter->state() == AdapterState::Loaded
                    ? adapter->path() + ": adapter '" + adapter->name() + "' loaded but reports no device"
                    : adapter->reason());
  }
  // All or nothing: devices appended before a refusal would outlive their adapter (a Python backend's
  // table is given back when its registration fails), so the room is checked before the first one.
  const int room = kMaxDevices - device_count();
  if (static_cast<int>(found.size()) > room) {
    adapter->mark_unavailable(adapter->path() + ": its " + std::to_string(found.size()) + " devices do not fit: " +
                              std::to_string(device_count()) + " of the " + std::to_string(kMaxDevices) +
                              " devices torch_hal can number are taken");
    throw Error(ErrorCode::Unavailable, adapter->reason() + "; use fewer devices, or HAL_VISIBLE_DEVICES to start "
                                        "with fewer");
  }
  std::vector<DeviceSortKey> keys;
  for (const auto& d : found) keys.push_back(sort_key(*d));
  std::vector<int> indices;
  // Appended in the numbering rule's order among themselves; HAL_VISIBLE_DEVICES applies at start-up only.
  for (size_t pos : order_devices(keys, nullptr)) indices.push_back(append_device(std::move(found[pos])));
  return indices;
}

std::vector<int> DeviceRegistry::register_adapter_library(const std::string& path) {
  std::unique_ptr<AdapterLibrary> lib = AdapterLibrary::open(path);
  std::lock_guard<std::mutex> lock(mutex_);
  adapters_.push_back(std::move(lib));
  return add_devices_of(adapters_.back().get());
}

std::vector<int> DeviceRegistry::register_adapter_table(const hal_adapter_t* table, const std::string& origin,
                                                        std::shared_ptr<void> keep_alive) {
  std::unique_ptr<AdapterLibrary> lib = AdapterLibrary::from_table(table, origin, std::move(keep_alive));
  std::lock_guard<std::mutex> lock(mutex_);
  adapters_.push_back(std::move(lib));
  return add_devices_of(adapters_.back().get());
}

}  // namespace hal
