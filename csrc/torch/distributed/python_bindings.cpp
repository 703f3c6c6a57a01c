#include "distributed/python_bindings.h"

#include <torch/csrc/utils/pybind.h>

#include "distributed/hal_backend.h"

namespace py = pybind11;

namespace torch_hal::distributed {

void bind(py::module& m) {
  m.def("_init_distributed", [m]() mutable {
    if (py::hasattr(m, "DistributedBackend")) return;
    py::class_<HalBackend, c10d::Backend, c10::intrusive_ptr<HalBackend>>(m, "DistributedBackend")
        .def(py::init([](const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                         const c10::intrusive_ptr<c10d::Backend>& gloo, double timeout_seconds) {
               const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000.0));
               return c10::make_intrusive<HalBackend>(store, rank, size, gloo, timeout);
             }),
             py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("gloo"), py::arg("timeout_seconds"))
        .def_property_readonly("host_backend", &HalBackend::host_backend)
        .def_static("engine_of", &HalBackend::engine_of, py::arg("device_index"));
  });
}

}  // namespace torch_hal::distributed
