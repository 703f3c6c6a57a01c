// One adapter function table per Python backend. Adapter functions carry no context pointer, so a table
// can only tell its backend apart by being a different table: kMaxPythonBackends tables are compiled
// here, each forwarding to the backend in its slot. A slot is taken at registration and, when the
// registration fails, given back for the next one. The binding that Python calls is the glue's
// (csrc/torch/python/python_backends.cpp), which adds the table to the core's registry.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

#include <pybind11/stl.h>

#include "python_backend/python_backend.h"

namespace py = pybind11;

namespace torch_hal {
namespace {

std::mutex g_slots_mutex;                                             // guards taking and giving back slots
// Set before its table is used. Leaked on purpose: a backend holds Python objects, which must not be
// released after the interpreter is gone (static destruction), and the registry may call it until then.
std::array<std::unique_ptr<PythonBackend>, kMaxPythonBackends>& g_slots =
    *new std::array<std::unique_ptr<PythonBackend>, kMaxPythonBackends>();
std::array<hal_adapter_t, kMaxPythonBackends> g_tables;

template <int S>
PythonBackend& backend() {
  return *g_slots[S];
}

template <int S>
hal_adapter_t make_table() {
  hal_adapter_t t{};
  t.struct_size = sizeof(hal_adapter_t);
  t.abi_version = HAL_ABI_VERSION;
  t.get_last_error = [] { return backend<S>().get_last_error(); };
  // Generic lambdas convert to each field's function pointer type; each forwards to slot S's backend.
#define HAL_FORWARD_TO_SLOT(name) t.name = [](auto... a) { return backend<S>().name(a...); };
  HAL_ABI_DEVICE_NAMES(HAL_FORWARD_TO_SLOT)
  HAL_ABI_MEMORY_NAMES(HAL_FORWARD_TO_SLOT)
  HAL_ABI_STREAM_EVENT_NAMES(HAL_FORWARD_TO_SLOT)
#undef HAL_FORWARD_TO_SLOT
  // op_supported / launch_op stay NULL: a Python backend has no native kernels; ops use the fallback.
  return t;
}

template <size_t... S>
void make_tables(std::index_sequence<S...>) {
  ((g_tables[S] = make_table<static_cast<int>(S)>()), ...);
}

int take_slot() {
  static std::once_flag tables_made;
  std::call_once(tables_made, [] { make_tables(std::make_index_sequence<kMaxPythonBackends>()); });
  for (int s = 0; s < kMaxPythonBackends; ++s) {
    if (!g_slots[s]) return s;
  }
  return -1;
}

hal_device_properties_t properties_from(const py::dict& d) {
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  const auto text = [&](const char* key, char* dst, size_t capacity) {
    std::snprintf(dst, capacity, "%s", d[key].cast<std::string>().c_str());
  };
  text("name", p.name, sizeof(p.name));
  text("vendor", p.vendor, sizeof(p.vendor));
  text("arch_name", p.arch_name, sizeof(p.arch_name));
  text("uuid", p.uuid, sizeof(p.uuid));
  p.total_memory_bytes = d["total_memory"].cast<uint64_t>();
  p.compute_units = d["compute_units"].cast<int32_t>();
  p.max_threads_per_block = 1;
  if (d["supports_fp16"].cast<bool>()) p.flags |= HAL_DEVICE_FLAG_FP16;
  if (d["supports_bf16"].cast<bool>()) p.flags |= HAL_DEVICE_FLAG_BF16;
  if (d["supports_fp64"].cast<bool>()) p.flags |= HAL_DEVICE_FLAG_FP64;
  if (d["host_accessible"].cast<bool>()) p.flags |= HAL_DEVICE_FLAG_HOST_ACCESSIBLE;
  return p;
}

}  // namespace

std::vector<int> register_python_backend(py::object backend, const std::string& name, const std::string& description,
                                         const py::list& properties, const py::dict& hooks,
                                         py::object memory_copy_type, const AddAdapterTable& add_table) {
  std::vector<hal_device_properties_t> props;
  for (py::handle d : properties) props.push_back(properties_from(py::cast<py::dict>(d)));
  PythonBackendHooks h;
  h.copy_to_device = hooks["copy_to_device"].cast<bool>();
  h.copy_from_device = hooks["copy_from_device"].cast<bool>();
  h.copy_on_device = hooks["copy_on_device"].cast<bool>();
  h.get_memory_info = hooks["get_memory_info"].cast<bool>();
  h.synchronize = hooks["synchronize"].cast<bool>();

  std::unique_lock<std::mutex> lock(g_slots_mutex);
  const int slot = take_slot();
  if (slot < 0) {
    throw py::value_error("cannot register Python backend '" + name + "': all " +
                          std::to_string(kMaxPythonBackends) +
                          " slots for Python backends of this process are taken (each needs a function table of its "
                          "own, compiled in; kMaxPythonBackends in csrc/torch/python_backend/python_backend.h). "
                          "Serve several devices from one backend (get_device_count) instead of registering one "
                          "backend per device");
  }
  g_slots[slot] = std::make_unique<PythonBackend>(slot, std::move(backend), name, description, std::move(props), h,
                                                  std::move(memory_copy_type));
  g_tables[slot].name = g_slots[slot]->name().c_str();
  g_tables[slot].description = g_slots[slot]->description().c_str();
  try {
    return add_table(&g_tables[slot], "python:" + name);
  } catch (...) {
    // Refused (a duplicate name, no device): the registry keeps the entry, marked, but never calls the table
    // again, so the slot serves the next registration.
    g_tables[slot].name = "<free Python backend slot>";  // the registry kept a copy of the name
    g_tables[slot].description = "";
    g_slots[slot].reset();
    throw;
  }
}

}  // namespace torch_hal
