#include "compile/generated_code_calls.h"

#include <ATen/EmptyTensor.h>
#include <climits>
#include <c10/util/SmallVector.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>

#include "dispatch/output_capture.h"
#include "hal/streams.h"
#include "runtime/allocator.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

using Dims = c10::SmallVector<int64_t, 8>;

void parse_dims(PyObject* value, const char* what, Dims& out) {
  const bool tuple = PyTuple_Check(value);
  TORCH_CHECK_TYPE(tuple || PyList_Check(value), what, " must be a tuple or list of ints, not ", Py_TYPE(value)->tp_name);
  const Py_ssize_t n = tuple ? PyTuple_GET_SIZE(value) : PyList_GET_SIZE(value);
  out.resize(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = tuple ? PyTuple_GET_ITEM(value, i) : PyList_GET_ITEM(value, i);
    const long long v = PyLong_AsLongLong(item);
    if (v == -1 && PyErr_Occurred()) throw python_error();
    out[i] = v;
  }
}

// (size, stride, dtype): what Inductor's allocation lines pass.
c10::ScalarType parse_allocation(PyObject* const* args, Py_ssize_t nargs, const char* fn, Dims& size, Dims& stride) {
  TORCH_CHECK_TYPE(nargs == 3, fn, "(size, stride, dtype) takes 3 arguments, got ", nargs);
  parse_dims(args[0], "size", size);
  parse_dims(args[1], "stride", stride);
  TORCH_CHECK_VALUE(size.size() == stride.size(), fn, ": ", size.size(), " sizes but ", stride.size(), " strides");
  TORCH_CHECK_TYPE(THPDtype_Check(args[2]), fn, ": dtype must be a torch.dtype");
  return reinterpret_cast<THPDtype*>(args[2])->scalar_type;
}

int parse_device(PyObject* const* args, Py_ssize_t nargs, const char* fn) {
  TORCH_CHECK_TYPE(nargs == 1, fn, "(device) takes 1 argument, got ", nargs);
  const long v = PyLong_AsLong(args[0]);
  if (v == -1 && PyErr_Occurred()) throw python_error();
  TORCH_CHECK_INDEX(v >= INT_MIN && v <= INT_MAX, fn, ": no hal device has index ", v);
  return static_cast<int>(v);
}

// empty_strided_hal(size, stride, dtype): a hal tensor on the current device, without the dispatcher or
// Python's argument parser, as torch.cuda's code gets from empty_strided_cuda: a Triton graph's wrapper
// allocates every buffer with it (torch.empty_strided with device="hal" costs about 2 µs more a buffer).
PyObject* empty_strided_hal(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  Dims size, stride;
  const auto dtype = parse_allocation(args, nargs, "empty_strided_hal", size, stride);
  return THPVariable_Wrap(at::detail::empty_strided_generic(
      size, stride, device_allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), dtype));
  END_HANDLE_TH_ERRORS
}

// A host graph's buffer: a CPU tensor in the memory of hal:device (the function's bound `self`), so that the
// buffers the compiled code returns become hal tensors without copies (host_wrapper.py).
PyObject* host_buffer(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  Dims size, stride;
  const auto dtype = parse_allocation(args, nargs, "empty_strided_cpu", size, stride);
  OutputCaptureScope capture(static_cast<c10::DeviceIndex>(PyLong_AsLong(self)));
  return THPVariable_Wrap(at::detail::empty_strided_cpu(size, stride, dtype));
  END_HANDLE_TH_ERRORS
}

// A host graph's output buffer that only its C++ kernels write and that it returns whole as a hal tensor: the
// hal tensor itself, on hal:device (the bound `self`), since a kernel takes the data pointer, which a hal tensor
// of a host-accessible device gives as a CPU tensor does. So the graph hands it back as it is, rather than a
// CPU buffer that compile_host_outputs then wraps in a new hal storage and tensor (host_wrapper.py).
PyObject* host_output_buffer(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  Dims size, stride;
  const auto dtype = parse_allocation(args, nargs, "empty_strided_hal_output", size, stride);
  const auto index = static_cast<c10::DeviceIndex>(PyLong_AsLong(self));
  const size_t nbytes = at::detail::computeStorageNbytes(size, stride, c10::elementSize(dtype));
  c10::Storage storage(c10::Storage::use_byte_size_t(), nbytes, allocate_on(index, nbytes), device_allocator(),
                       /*resizable=*/true);
  auto out = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), c10::scalarTypeToTypeMeta(dtype));
  out.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride);
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

PyMethodDef host_buffer_def = {"empty_strided_cpu", fastcall(host_buffer), METH_FASTCALL,
                               "A host graph's buffer in the memory of the hal device it is bound to."};
PyMethodDef host_output_buffer_def = {"empty_strided_hal_output", fastcall(host_output_buffer), METH_FASTCALL,
                                      "A host graph's output buffer: a hal tensor on the device it is bound to."};

// `def` bound to hal:device (args: the device): one C call a buffer, no Python frame in between.
PyObject* bind_to_device(PyMethodDef* def, PyObject* const* args, Py_ssize_t nargs) {
  const auto index = checked_device_index(parse_device(args, nargs, def->ml_name));
  PyObject* bound = PyLong_FromLong(index);
  if (bound == nullptr) return nullptr;
  PyObject* fn = PyCFunction_New(def, bound);
  Py_DECREF(bound);
  return fn;
}

// host_buffer_allocator(device): host_buffer bound to hal:device, what a host graph's wrapper calls its
// empty_strided_cpu.
PyObject* host_buffer_allocator(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  return bind_to_device(&host_buffer_def, args, nargs);
  END_HANDLE_TH_ERRORS
}

// host_output_allocator(device): host_output_buffer bound to hal:device, what a host graph's wrapper calls its
// empty_strided_hal_output.
PyObject* host_output_allocator(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  return bind_to_device(&host_output_buffer_def, args, nargs);
  END_HANDLE_TH_ERRORS
}

// current_raw_stream(device): the vendor handle of hal:device's current stream, what Triton kernels launch on.
PyObject* current_raw_stream(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  const auto index = parse_device(args, nargs, "current_raw_stream");
  const void* handle = call_core([&] { return hal::vendor_stream_handle(index, hal::current_stream(index)); });
  return PyLong_FromVoidPtr(const_cast<void*>(handle));
  END_HANDLE_TH_ERRORS
}

// exchange_device(device): makes hal:device current (a negative index changes nothing) and returns the
// device that was, for the device guards of generated code (torch.hal._DeviceGuard).
PyObject* exchange_device(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  const int index = parse_device(args, nargs, "exchange_device");
  const c10::DeviceIndex previous = current_device();
  if (index >= 0 && index != previous) set_current_device(checked_device_index(index));
  return PyLong_FromLong(previous);
  END_HANDLE_TH_ERRORS
}

PyMethodDef methods[] = {
    {"empty_strided_hal", fastcall(empty_strided_hal), METH_FASTCALL, nullptr},
    {"host_buffer_allocator", fastcall(host_buffer_allocator), METH_FASTCALL, nullptr},
    {"host_output_allocator", fastcall(host_output_allocator), METH_FASTCALL, nullptr},
    {"current_raw_stream", fastcall(current_raw_stream), METH_FASTCALL, nullptr},
    {"exchange_device", fastcall(exchange_device), METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void bind_generated_code_calls(pybind11::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), methods) != 0) throw pybind11::error_already_set();
}

}  // namespace torch_hal
