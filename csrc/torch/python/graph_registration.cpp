// torch.accelerator.Graph -> torch_hal.graphs.HALGraph. PyTorch's accelerator graph (torch/accelerator/graphs.py
// over torch._C._acceleratorGraph) creates a GraphImplInterface from a registry keyed by device type name; hal's
// forwards each call to one Python HALGraph, which records and replays (torch_hal/graphs.py). PyTorch 2.11 has no
// registry: there the header is absent and this registers nothing (torch.hal.HALGraph still works).
#include "python/graph_registration.h"

#if __has_include(<ATen/core/GraphImplInterface.h>)
#include <ATen/core/GraphImplInterface.h>
#include <c10/core/DeviceType.h>
#include <pybind11/pybind11.h>

#include <string>

namespace torch_hal {
namespace {

namespace py = pybind11;

const char* capture_mode_name(at::GraphCaptureMode mode) {
  switch (mode) {
    case at::GraphCaptureMode::Global: return "global";
    case at::GraphCaptureMode::ThreadLocal: return "thread_local";
    case at::GraphCaptureMode::Relaxed: return "relaxed";
    default: return "default";
  }
}

class RecordedGraph final : public at::GraphImplInterface {
 public:
  explicit RecordedGraph(const at::GraphImplArgs& args) {
    py::gil_scoped_acquire gil;
    graph_ = py::module_::import("torch_hal.graphs").attr("HALGraph")(args.keep_graph);
  }
  ~RecordedGraph() override {
    py::gil_scoped_acquire gil;
    graph_ = py::object();  // dropped with the GIL held
  }

  void capture_begin(at::MempoolId_t pool, at::GraphCaptureMode mode) override {
    py::gil_scoped_acquire gil;
    const py::object pool_id =
        pool.first == 0 && pool.second == 0 ? py::object(py::none()) : py::make_tuple(pool.first, pool.second);
    graph_.attr("capture_begin")(pool_id, capture_mode_name(mode));
  }
  void capture_end() override { call("capture_end"); }
  void instantiate() override { call("instantiate"); }
  void replay() override { call("replay"); }
  void reset() override { call("reset"); }
  at::MempoolId_t pool() const override {
    py::gil_scoped_acquire gil;
    const py::tuple id = graph_.attr("pool")();
    return {id[0].cast<at::CaptureId_t>(), id[1].cast<at::CaptureId_t>()};
  }
  void enable_debug_mode() override { call("enable_debug_mode"); }
  void debug_dump(const std::string& path) override {
    py::gil_scoped_acquire gil;
    graph_.attr("debug_dump")(path);
  }

 private:
  void call(const char* method) {
    py::gil_scoped_acquire gil;
    graph_.attr(method)();
  }

  py::object graph_;
};

}  // namespace

void register_accelerator_graph() {
  const std::string key = c10::DeviceTypeName(c10::DeviceType::PrivateUse1, /*lower_case=*/false);
  if (at::GraphImplRegistry()->Has(key)) return;
  at::GraphImplRegistry()->Register(
      key, [](at::GraphImplArgs args) -> std::unique_ptr<at::GraphImplInterface> {
        return std::make_unique<RecordedGraph>(args);
      });
}

}  // namespace torch_hal

#else

namespace torch_hal {
void register_accelerator_graph() {}
}  // namespace torch_hal

#endif
