#include "interop/dlpack_capsule.h"

#include <ATen/dlpack.h>

#include <cstring>
#include <utility>

namespace torch_hal {
namespace {

namespace py = pybind11;

// The DLTensor inside an unconsumed capsule, versioned ("dltensor_versioned") or not ("dltensor"). A
// consumed capsule ("used_dltensor...") no longer owns its tensor: it is refused.
DLTensor& tensor_of(const py::capsule& capsule) {
  const char* name = capsule.name();
  if (name != nullptr && std::strcmp(name, "dltensor_versioned") == 0) {
    return static_cast<DLManagedTensorVersioned*>(capsule.get_pointer())->dl_tensor;
  }
  if (name != nullptr && std::strcmp(name, "dltensor") == 0) {
    return static_cast<DLManagedTensor*>(capsule.get_pointer())->dl_tensor;
  }
  throw py::value_error(std::string("expected an unconsumed DLPack capsule (\"dltensor\" or "
                                    "\"dltensor_versioned\"), got one named \"") +
                        (name ? name : "") + "\": a DLPack capsule can be imported only once");
}

}  // namespace

void bind_dlpack(py::module_& m) {
  m.def("retarget_dlpack", [](const py::capsule& capsule, int device_type, int device_id) {
    DLTensor& tensor = tensor_of(capsule);
    tensor.device.device_type = static_cast<DLDeviceType>(device_type);
    tensor.device.device_id = device_id;
  });
  m.def("dlpack_device", [](const py::capsule& capsule) {
    const DLTensor& tensor = tensor_of(capsule);
    return std::make_pair(static_cast<int>(tensor.device.device_type), static_cast<int>(tensor.device.device_id));
  });
}

}  // namespace torch_hal
