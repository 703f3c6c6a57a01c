// The calls that code Inductor generates for hal graphs makes once per buffer or per kernel launch, written
// against CPython's fast call convention: a compiled step of a small model makes dozens of them, and a
// pybind11 or torch.* call costs a microsecond or two more than torch.cuda's own (empty_strided_cuda,
// _cuda_getCurrentRawStream, _DeviceGuard), which the step's host time then shows.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

// torch_hal._C.empty_strided_hal(size, stride, dtype), host_buffer_allocator(device), current_raw_stream(device)
// and exchange_device(device).
void bind_generated_code_calls(pybind11::module_& m);

// A METH_FASTCALL function, PyObject* (PyObject* self, PyObject* const* args, Py_ssize_t nargs), as PyMethodDef
// holds it: a PyCFunction.
template <typename Fn>
constexpr PyCFunction fastcall(Fn fn) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn));
}

}  // namespace torch_hal
