// Whether the Python interpreter still takes calls, for code that may be asked to take the GIL from any thread
// at any time: the Python backend adapter (csrc/torch/python_backend) before it calls a backend's method,
// and the glue before it lets go of the GIL around the core's locks (csrc/torch/runtime/python_gil.h). Past
// this point, taking the GIL would hang or crash the exiting process.
#pragma once

#include <Python.h>

namespace torch_hal {

inline bool python_is_usable() {
  // Py_IsFinalizing is public from 3.13; before, the underscored name is the same function.
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

}  // namespace torch_hal
