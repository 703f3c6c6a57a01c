// The Python backend adapter (csrc/torch/python_backend) builds a function table per backend; this adds it
// to the core's registry, the one step that needs the glue. The adapter itself sees only adapter.h.
#include "python/python_backends.h"

#include <pybind11/stl.h>

#include "python_backend/python_backend.h"
#include "runtime/hal_context.h"
#include "runtime/python_gil.h"

namespace py = pybind11;

namespace torch_hal {
namespace {

std::vector<int> add_python_backend_table(const hal_adapter_t* table, const std::string& label) {
  // From now on the core may call into Python under its own locks (allocate_memory under the allocator's), so
  // the glue must let go of the GIL around those locks (runtime/python_gil.h): say so before the first call.
  note_python_backend_registered();
  return call_core([&] { return registry().register_adapter_table(table, label, nullptr); });
}

}  // namespace

void bind_python_backends(py::module_& m) {
  m.def(
      "_register_python_backend",
      [](py::object backend, const std::string& name, const std::string& description, const py::list& properties,
         const py::dict& hooks, py::object memory_copy_type) {
        return register_python_backend(std::move(backend), name, description, properties, hooks,
                                       std::move(memory_copy_type), add_python_backend_table);
      },
      py::arg("backend"), py::arg("name"), py::arg("description"), py::arg("properties"), py::arg("hooks"),
      py::arg("memory_copy_type"));
  m.attr("MAX_PYTHON_BACKENDS") = kMaxPythonBackends;
}

}  // namespace torch_hal
