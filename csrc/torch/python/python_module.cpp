// torch_hal._C: the Python face of the HAL core and the glue. Thin on purpose: the Python package
// (torch_hal/) shapes these into torch.hal's torch.cuda-like API.
#include <map>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/Generator.h>
#include <torch/csrc/utils/pybind.h>

#include "compile/generated_code_calls.h"
#include "compile/host_graph_ops.h"
#include "dispatch/cpu_fallback.h"
#include "dispatch/op_coverage.h"
#include "dispatch/output_capture.h"
#include "distributed/python_bindings.h"
#include "hal/caching_allocator.h"
#include "hal/environment.h"
#include "hal/fork_guard.h"
#include "hal/pinned_memory.h"
#include "hal/streams.h"
#include "interop/dlpack_capsule.h"
#include "interop/memory_history.h"
#include "interop/shared_storage.h"
#include "python/graph_registration.h"
#include "python/python_backends.h"
#include "runtime/allocator.h"
#include "runtime/generator.h"
#include "runtime/hal_context.h"
#include "runtime/python_gil.h"
#include "runtime/registration.h"

namespace py = pybind11;

namespace torch_hal {
namespace {

py::dict properties_dict(const hal::Device& d) {
  const auto& p = d.properties;
  py::dict out;
  out["index"] = d.index;
  out["adapter"] = d.adapter->name();
  out["local_index"] = d.local_index;
  out["name"] = std::string(p.name);
  out["vendor"] = std::string(p.vendor);
  out["arch_name"] = std::string(p.arch_name);
  out["pci_bus_id"] = std::string(p.pci_bus_id);
  out["uuid"] = std::string(p.uuid);
  out["total_memory"] = p.total_memory_bytes;
  out["multi_processor_count"] = p.compute_units;
  out["major"] = p.compute_capability_major;
  out["minor"] = p.compute_capability_minor;
  out["max_threads_per_block"] = p.max_threads_per_block;
  out["shared_memory_per_block"] = p.shared_memory_per_block_bytes;
  out["clock_rate_khz"] = p.clock_rate_khz;
  out["memory_clock_rate_khz"] = p.memory_clock_rate_khz;
  out["memory_bus_width"] = p.memory_bus_width_bits;
  out["supports_fp16"] = (p.flags & HAL_DEVICE_FLAG_FP16) != 0;
  out["supports_bf16"] = (p.flags & HAL_DEVICE_FLAG_BF16) != 0;
  out["supports_fp8"] = (p.flags & HAL_DEVICE_FLAG_FP8) != 0;
  out["supports_fp64"] = (p.flags & HAL_DEVICE_FLAG_FP64) != 0;
  out["host_accessible"] = d.host_accessible();
  out["peak_fp32_tflops"] = p.peak_fp32_tflops;
  out["peak_bf16_tflops"] = p.peak_bf16_tflops;
  out["memory_bandwidth_gbps"] = p.memory_bandwidth_gbps;
  return out;
}

py::list adapters_list() {
  py::list out;
  for (const hal::AdapterLibrary* a : registry().adapters()) {
    py::dict d;
    d["name"] = a->name();
    d["path"] = a->path();
    d["description"] = a->description();
    d["state"] = std::string(hal::adapter_state_name(a->state()));
    d["reason"] = a->reason();
    d["abi_version"] = std::to_string(HAL_ABI_MAJOR_OF(a->abi_version())) + "." +
                       std::to_string(HAL_ABI_MINOR_OF(a->abi_version()));
    d["device_count"] = a->device_count();
    out.append(d);
  }
  return out;
}

std::map<std::string, int64_t> host_stats_map(const hal::PinnedMemoryStats& s) {
  std::map<std::string, int64_t> out;
  auto put_stat = [&](const std::string& name, const hal::Stat& st) {
    out[name + ".current"] = st.current;
    out[name + ".peak"] = st.peak;
    out[name + ".allocated"] = st.allocated;
    out[name + ".freed"] = st.freed;
  };
  auto put_time = [&](const std::string& name, const hal::DurationStat& t) {
    out[name + ".total"] = static_cast<int64_t>(t.total);
    out[name + ".max"] = static_cast<int64_t>(t.max);
    out[name + ".min"] = static_cast<int64_t>(t.min);
    out[name + ".count"] = t.count;
    out[name + ".avg"] = t.count ? static_cast<int64_t>(t.total / static_cast<double>(t.count)) : 0;
  };
  put_stat("allocations", s.allocations);
  put_stat("allocated_bytes", s.allocated_bytes);
  put_stat("active_requests", s.active_requests);
  put_stat("active_bytes", s.active_bytes);
  out["num_host_alloc"] = s.num_host_alloc;
  out["num_host_free"] = s.num_host_free;
  put_time("host_alloc_time", s.alloc_time_us);
  put_time("host_free_time", s.free_time_us);
  return out;
}

}  // namespace
}  // namespace torch_hal

PYBIND11_MODULE(_C, m) {
  using namespace torch_hal;
  m.doc() = "torch_hal native module: HAL core and PyTorch glue";

  m.def("_init", [](const std::string& lib_dir) {
    initialize(lib_dir);
    register_hooks();
    install_output_capture_allocator();
    route_structured_functional_ops_to_cpu_kernels();
    register_accelerator_graph();  // torch.accelerator.Graph on PyTorch 2.12+ (python/graph_registration.cpp)
  });
  // One parser for every on/off setting, Python's included: ValueError naming the variable and what it takes.
  m.def("env_flag", [](const std::string& name, bool fallback) {
    return call_core([&] { return hal::env_flag(name.c_str(), fallback); });
  });
  m.def("abi_version", [] { return std::to_string(HAL_ABI_VERSION_MAJOR) + "." + std::to_string(HAL_ABI_VERSION_MINOR); });

  const auto without_gil = py::call_guard<GilReleasedAroundCoreLock>();  // runtime/python_gil.h

  // devices
  m.def("device_type_id", [] { return static_cast<int>(kHal); });
  m.def("device_count", [] { return device_count(); });
  m.def("current_device", [] { return static_cast<int>(current_device()); });
  m.def("set_device", [](int index) { set_current_device(checked_device_index(index)); });
  m.def("get_device_properties", [](int index) { return properties_dict(device(checked_device_index(index))); });
  m.def("adapters", &adapters_list);
  // The most hal devices one process numbers (adapters and Python backends together).
  m.attr("MAX_DEVICES") = hal::DeviceRegistry::kMaxDevices;
  bind_python_backends(m);  // _register_python_backend: a torch_hal.CustomDeviceBackend as an adapter
  bind_dlpack(m);           // retarget_dlpack, dlpack_device (torch_hal/dlpack.py)
  m.def("register_adapter_library", [](const std::string& path) {
    return call_core([&] { return registry().register_adapter_library(path); });
  });
  m.def("mem_get_info", [](int index) { return memory_info(checked_device_index(index)); });

  // streams (torch.Stream / torch.Event carry the rest through the device guard)
  m.def("synchronize", [](int index) { call_core([&] { hal::synchronize_device(index); }); }, without_gil);
  // The vendor's handle of a hal stream (a cudaStream_t on NVIDIA; 0 where there is none), for DLPack's
  // stream exchange and the Triton kernels of torch.compile.
  m.def("native_stream_handle", [](int index, int64_t id) {
    return reinterpret_cast<uintptr_t>(call_core([&] { return hal::vendor_stream_handle(index, id); }));
  });
  m.def("current_stream_id", [](int index) { return call_core([&] { return hal::current_stream(index); }); });
  m.def("set_current_stream", [](int index, int64_t id) {
    call_core([&] {
      hal::native_stream(index, id);  // validates the id
      hal::set_current_stream(index, id);
    });
  });

  // memory. These take the caching allocator's lock or wait for a device's streams. A thread holding that
  // lock may be calling a Python backend (torch_hal.custom_device), which needs the GIL: holding the GIL
  // while waiting here would deadlock, so they release it while Python backends exist (results become
  // Python objects afterwards, with the GIL).
  m.def("memory_stats", [](int index) {
    device(checked_device_index(index));
    return call_core([&] { return hal::memory_stats(index); });
  }, without_gil);
  m.def("reset_peak_memory_stats", [](int index) { call_core([&] { hal::reset_peak_stats(index); }); }, without_gil);
  m.def("reset_accumulated_memory_stats", [](int index) { call_core([&] { hal::reset_accumulated_stats(index); }); },
        without_gil);
  m.def("empty_cache", &empty_device_cache);
  // Pinned host memory (hal/pinned_memory.h): torch.cuda.host_memory_stats()'s keys.
  m.def("host_memory_stats", [] { return call_core([] { return host_stats_map(hal::pinned_memory_stats()); }); },
        without_gil);
  m.def("in_bad_fork", [] { return hal::in_bad_fork(); });
  m.def("device_used", [] { return hal::device_used(); });
  m.def("empty_host_cache", [] { call_core([] { hal::empty_pinned_cache(); }); }, without_gil);
  m.def("reset_peak_host_memory_stats", [] { call_core([] { hal::reset_peak_pinned_memory_stats(); }); }, without_gil);
  m.def("reset_accumulated_host_memory_stats", [] { call_core([] { hal::reset_accumulated_pinned_memory_stats(); }); },
        without_gil);
  m.def("set_memory_fraction", [](double fraction, int index) {
    TORCH_CHECK_VALUE(fraction > 0.0 && fraction <= 1.0, "memory fraction must be in (0, 1], got ", fraction);
    device(checked_device_index(index));
    call_core([&] { hal::set_memory_fraction(index, fraction); });
  }, without_gil);
  m.def("get_memory_fraction", [](int index) { return call_core([&] { return hal::memory_fraction(index); }); },
        without_gil);
  bind_memory_history(m);  // memory_snapshot, memory_trace, record_memory_history
  bind_ipc(m);             // ipc_supported, ipc_export, ipc_open (torch_hal/multiprocessing_reductions.py)

  // random
  m.def("default_generator", [](int index) {
    return py::reinterpret_steal<py::object>(
        THPGenerator_initDefaultGenerator(default_generator(checked_device_index(index))));
  });

  // the CPU fallback
  m.def("fallback_stats", &fallback_stats);
  m.def("reset_fallback_stats", &reset_fallback_stats);
  m.def("set_strict", &set_strict_mode);
  m.def("is_strict", &strict_mode);
  distributed::bind(m);  // _init_distributed (torch_hal/distributed.py)
  bind_op_coverage(m);  // kernel_table, hal_op_name, adapter_op_support (torch_hal/op_coverage.py)
  bind_compile_host_graph(m);    // compile_host_views, compile_host_outputs (torch_hal/compile/host_graph.py)
  bind_generated_code_calls(m);  // empty_strided_hal, host_buffer_allocator, ... (torch_hal/compile)
}
