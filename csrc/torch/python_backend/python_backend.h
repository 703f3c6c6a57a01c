// A Python torch_hal.CustomDeviceBackend seen by the HAL core as an adapter. The core calls adapter
// functions through a C table (python_backend_tables.cpp gives each backend its own); this class is what
// those functions do for one backend.
//
// What runs in Python, under the GIL: allocate_memory, free_memory, and, only where the backend overrides
// them, copy_to_device / copy_from_device / copy_on_device, get_memory_info and synchronize. Everything
// else is native: the defaults of those methods are plain memmoves and counting, done here without the
// GIL; streams and events are in-order and synchronous (each command completes when it is submitted, a
// valid in-order stream). Discovery (device count, properties) happened in Python before registration.
//
// An exception raised by a backend method becomes a status code and this thread's last error, naming the
// backend, the method and the exception, so that the caller gets a Python exception with all three and
// every other device keeps working. MemoryError in allocate_memory is the device's out-of-memory.
//
// Backend methods run while the core holds its allocator or staging locks: they must not use hal tensors.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "adapter_support/abi_entries.h"
#include "adapter_support/python_interpreter.h"
#include "torch_hal/adapter.h"

// The opaque handles of adapter.h for Python backends: streams remember nothing (commands complete at
// submission), events when they were reached.
struct hal_stream_impl;
struct hal_event_impl;

namespace torch_hal {

// Each Python backend needs a function table of its own (adapter functions carry no context pointer);
// python_backend_tables.cpp compiles this many.
constexpr int kMaxPythonBackends = 16;

// Which of the backend's optional methods it overrides (the defaults are run natively).
struct PythonBackendHooks {
  bool copy_to_device = false;
  bool copy_from_device = false;
  bool copy_on_device = false;
  bool get_memory_info = false;
  bool synchronize = false;
};

class PythonBackend {
 public:
  // `properties`: one hal_device_properties_t per device, already validated by torch_hal.custom_device.
  // `memory_copy_type`: the torch_hal.custom_device.MemoryCopy class handed to copy hooks.
  PythonBackend(int slot, pybind11::object backend, std::string name, std::string description,
                std::vector<hal_device_properties_t> properties, PythonBackendHooks hooks,
                pybind11::object memory_copy_type);
  ~PythonBackend();  // needs the GIL: releases the backend and every buffer still held
  PythonBackend(const PythonBackend&) = delete;
  PythonBackend& operator=(const PythonBackend&) = delete;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }

  // The adapter functions (see adapter.h for each contract), as member functions of the ABI's types.
  HAL_ABI_DEVICE_ENTRIES;
  HAL_ABI_MEMORY_ENTRIES;
  HAL_ABI_STREAM_EVENT_ENTRIES;
  const char* get_last_error();

 private:
  // One buffer returned by allocate_memory: the object, and the buffer-protocol view that pins its memory
  // (a bytearray cannot be resized while viewed, so the address stays valid).
  struct Allocation {
    uint64_t size = 0;
    PyObject* owner = nullptr;
    Py_buffer view{};
  };
  // Where a device address lies: its allocation's object and the offset into it.
  struct Located {
    char* base = nullptr;
    PyObject* owner = nullptr;
    uint64_t offset = 0;
  };

  hal_status_t fail(hal_status_t status, std::string message);
  // Runs `body` under the GIL; a Python exception becomes a status and the last error.
  template <typename F>
  hal_status_t with_gil(const std::string& what, F&& body);
  // Finds the allocation holding [ptr, ptr + size) on `device`; false with the last error set otherwise.
  bool locate(int32_t device, const void* ptr, uint64_t size, const char* what, Located* out);
  // Hands one transfer to a copy hook (GIL held): `method` gets a MemoryCopy and the device index.
  void call_copy_hook(const char* method, int32_t device, void* dst, const void* src, uint64_t size,
                      const Located* dst_at, const Located* src_at);
  // Buffers freed by the core wait here: free_device runs under core locks and must not need the GIL.
  void release_freed_buffers();  // GIL held
  static int release_freed_buffers_callback(void* self);

  const int slot_;
  pybind11::object backend_;
  const std::string name_;
  const std::string description_;
  const std::vector<hal_device_properties_t> properties_;
  const PythonBackendHooks hooks_;
  pybind11::object memory_copy_type_;

  std::mutex mutex_;  // guards allocations_, used_; never held while taking the GIL
  std::vector<std::map<uintptr_t, Allocation>> allocations_;
  std::vector<uint64_t> used_;

  std::mutex freed_mutex_;  // guards freed_
  std::vector<std::pair<int32_t, Allocation>> freed_;
  bool release_scheduled_ = false;
};

// Hands a new backend's table to the HAL core and returns the hal indices of its devices, or throws when the
// core refuses it (a duplicate name, no device). The glue supplies it (csrc/torch/python/python_backends.cpp):
// the core's registry is the glue's, and this adapter sees only adapter.h, as every adapter does.
using AddAdapterTable = std::function<std::vector<int>(const hal_adapter_t* table, const std::string& label)>;

// Registers `backend` (a torch_hal.CustomDeviceBackend) as an adapter through `add_table` and returns its new
// hal indices. At most kMaxPythonBackends may be registered in one process (ValueError past that).
std::vector<int> register_python_backend(pybind11::object backend, const std::string& name,
                                         const std::string& description, const pybind11::list& properties,
                                         const pybind11::dict& hooks, pybind11::object memory_copy_type,
                                         const AddAdapterTable& add_table);

}  // namespace torch_hal
