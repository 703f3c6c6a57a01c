#include "interop/memory_history.h"

#include <pybind11/stl.h>

#include "hal/caching_allocator.h"
#include "runtime/hal_context.h"
#include "runtime/python_gil.h"

namespace torch_hal {
namespace {

namespace py = pybind11;

// The Python stack at an allocation, one "filename\tline\tname" line per frame, innermost last:
// torch_hal/memory.py turns it into memory_viz's frames.
std::string python_stack_context() {
  py::gil_scoped_acquire gil;
  try {
    py::list frames = py::module_::import("traceback").attr("extract_stack")();
    std::string out;
    for (py::handle frame : frames) {
      out += py::str(frame.attr("filename")).cast<std::string>() + "\t" +
             py::str(frame.attr("lineno")).cast<std::string>() + "\t" +
             py::str(frame.attr("name")).cast<std::string>() + "\n";
    }
    return out;
  } catch (const py::error_already_set&) {
    return {};
  }
}

py::list snapshot_list() {
  const auto segments = [] {
    GilReleasedAroundCoreLock unlocked;  // the allocators' locks may be held by a thread calling Python
    return call_core([] { return hal::memory_snapshot(); });
  }();
  py::list out;
  for (const auto& seg : segments) {
    py::dict s;
    s["device"] = seg.device;
    s["address"] = seg.address;
    s["total_size"] = seg.total_size;
    s["allocated_size"] = seg.allocated_size;
    s["stream"] = seg.stream;
    s["segment_type"] = seg.is_large ? "large" : "small";
    py::list blocks;
    for (const auto& b : seg.blocks) {
      py::dict bd;
      bd["address"] = b.address;
      bd["size"] = b.size;
      bd["requested_size"] = b.requested_size;
      bd["state"] = b.allocated ? "active_allocated" : "inactive";
      bd["context"] = b.context;
      blocks.append(bd);
    }
    s["blocks"] = blocks;
    out.append(s);
  }
  return out;
}

py::dict trace_dict() {
  const auto traces = [] {
    GilReleasedAroundCoreLock unlocked;
    return call_core([] { return hal::memory_trace(); });
  }();
  py::dict out;
  for (const auto& [device, entries] : traces) {
    py::list list;
    for (const auto& e : entries) {
      py::dict d;
      d["action"] = hal::trace_action_name(e.action);
      d["addr"] = e.address;
      d["size"] = e.size;
      d["stream"] = e.stream;
      d["time_us"] = e.time_us;
      d["context"] = e.context;
      list.append(d);
    }
    out[py::int_(device)] = list;
  }
  return out;
}

}  // namespace

void bind_memory_history(py::module_& m) {
  m.def("memory_snapshot", &snapshot_list);
  m.def("memory_trace", &trace_dict);
  // Stacks are recorded with each allocation, and the last max_entries allocator actions per device,
  // while enabled; disabling drops the trace, as torch.cuda does.
  m.def("record_memory_history", [](bool enabled, size_t max_entries) {
    hal::set_context_recorder(enabled ? &python_stack_context : nullptr);
    hal::set_trace_capacity(enabled ? max_entries : 0);
    if (!enabled) {
      GilReleasedAroundCoreLock unlocked;
      call_core([] { hal::clear_memory_trace(); });
    }
  });
}

}  // namespace torch_hal
