// torch_hal._C._register_python_backend and _C.MAX_PYTHON_BACKENDS: what makes a torch_hal.CustomDeviceBackend
// (torch_hal/custom_device.py) a set of hal devices.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

void bind_python_backends(pybind11::module_& m);

}  // namespace torch_hal
