#include "compile/host_graph_ops.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/SmallVector.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/csrc/utils/object_ptr.h>
#include <torch/library.h>

#include <algorithm>
#include <vector>

#include "compile/generated_code_calls.h"
#include "dispatch/output_capture.h"
#include "dispatch/tensor_bridge.h"
#include "runtime/allocator.h"
#include "runtime/hal_context.h"

namespace py = pybind11;

namespace torch_hal {
namespace {

// A view across devices owns a reference to the storage it views (its DataPtr's context), so either side may
// outlive the other: a compiled graph returns views of its CPU buffers as hal tensors, and keeps CPU views
// of hal activations for the backward graph.
void release_viewed_storage(void* context) { delete static_cast<c10::Storage*>(context); }

const c10::Storage* viewed_storage(const c10::Storage& storage) {
  const auto& ptr = storage.data_ptr();
  return ptr.get_deleter() == &release_viewed_storage ? static_cast<const c10::Storage*>(ptr.get_context()) : nullptr;
}

// `storage`'s bytes as a storage of `device`: the very storage where that is where they live (a CPU view of a
// compiled output handed back to the next compiled graph, a hal view of a graph input), else a new storage
// that refers to the root one. So views never chain, and aliasing is what PyTorch sees in eager mode.
c10::Storage storage_on(const c10::Storage& storage, c10::Device device) {
  const c10::Storage* root = viewed_storage(storage);
  const c10::Storage& target = root != nullptr ? *root : storage;
  if (target.device() == device) return target;
  void* data = const_cast<void*>(target.data_ptr().get());
  c10::DataPtr ptr(data, new c10::Storage(target), &release_viewed_storage, device);
  // Resizable as eager tensors are: a resize moves the values into new memory of the device's allocator.
  c10::Allocator* allocator = device.is_cpu() ? c10::GetCPUAllocator() : device_allocator();
  return c10::Storage(c10::Storage::use_byte_size_t(), target.nbytes(), std::move(ptr), allocator,
                      /*resizable=*/true);
}

// `like`'s bytes, sizes and strides as a tensor of the other side. It shares `like`'s version counter, as a
// view shares its base's: the two are one tensor to autograd, so an in-place change to a parameter between a
// compiled forward and its backward (which saved the parameter's CPU view) raises autograd's "modified by an
// inplace operation" error, as it does for CPU tensors, instead of a silently wrong gradient.
at::Tensor tensor_over(c10::Storage storage, const at::Tensor& like, c10::DispatchKey key) {
  auto out = at::detail::make_tensor<c10::TensorImpl>(std::move(storage), c10::DispatchKeySet(key), like.dtype());
  auto* impl = out.unsafeGetTensorImpl();
  impl->set_sizes_and_strides(like.sizes(), like.strides(), like.storage_offset());
  const auto& version = like.unsafeGetTensorImpl()->version_counter();
  if (version.enabled() && !impl->is_inference()) impl->set_version_counter(version);
  return out;
}

c10::DeviceIndex host_accessible_device_of(const at::Tensor& t, const char* op) {
  TORCH_CHECK(is_hal(t), "torch_hal::", op, " takes a hal tensor, got one on ", t.device());
  const auto index = t.device().index();
  TORCH_CHECK(is_host_accessible(index), "torch_hal::", op, ": hal:", static_cast<int>(index),
              "'s memory is not host-accessible, so torch.compile cannot run CPU code on it; compile for this "
              "device with backend=\"aot_eager\"");
  return index;
}

// The CPU tensor over a hal tensor's bytes. The caller has checked that the device's memory is host-accessible
// (host_accessible_device_of) and waited for its current stream where the CPU touches the memory now.
at::Tensor cpu_view_of(const at::Tensor& self) {
  return tensor_over(storage_on(self.storage(), c10::Device(c10::DeviceType::CPU)), self, c10::DispatchKey::CPU);
}

// A hal tensor's CPU view, kept with the hal tensor (its TensorImpl's BackendMeta, PyTorch's slot for what a
// backend attaches to a tensor) from one compiled call to the next. A training step views the same parameters
// in its forward and again in its backward, step after step; a new view each time costs a storage, a tensor,
// and a Python object that is freed at the end of the call. The cached view's Python object lives as long as
// the view (PyTorch keeps a tensor's Python object while C++ holds the tensor), so a hit hands out that object.
// The cache dies with the hal tensor, and it views the hal storage as a fresh view does, so it never holds
// memory longer than the hal tensor does, except a storage the hal tensor dropped (set_, .data =), until the
// next compiled call that views it. A shallow copy (detach) starts without one: PyTorch hands the slot to the
// copy through clone(), and a view shared by two tensors could outlive the one whose storage it holds.
struct CachedCpuView final : c10::BackendMeta {
  explicit CachedCpuView(at::Tensor cpu_view) : view(std::move(cpu_view)) {}
  c10::intrusive_ptr<c10::BackendMeta> clone(const c10::intrusive_ptr<c10::BackendMeta>&) const override {
    return {};
  }
  at::Tensor view;
};

// Whether `view` is still a CPU view of `self`'s bytes as they are now: its storage, its place in that storage
// (a resize or a set_ moves them) and its geometry.
bool still_views(const at::Tensor& view, const at::Tensor& self) {
  const c10::Storage* root = viewed_storage(view.storage());
  const auto& storage = self.storage();
  return root != nullptr && root->unsafeGetStorageImpl() == storage.unsafeGetStorageImpl() &&
         view.storage().data() == storage.data() && view.storage().nbytes() == storage.nbytes() &&
         view.dtype() == self.dtype() && view.storage_offset() == self.storage_offset() &&
         view.sizes() == self.sizes() && view.strides() == self.strides();
}

// `self`'s kept CPU view, made (and kept) first where there is none or it no longer views `self`. A tensor whose
// slot holds something else (another extension's) gets a view that is not kept.
at::Tensor cached_cpu_view_of(const at::Tensor& self) {
  auto* impl = self.unsafeGetTensorImpl();
  c10::BackendMeta* meta = impl->get_backend_meta();
  auto* cached = dynamic_cast<CachedCpuView*>(meta);
  if (cached != nullptr && still_views(cached->view, self)) return cached->view;
  if (meta != nullptr && cached == nullptr) return cpu_view_of(self);
  auto fresh = c10::make_intrusive<CachedCpuView>(cpu_view_of(self));
  cached = fresh.get();
  impl->set_backend_meta(std::move(fresh));
  return cached->view;
}

at::Tensor cpu_view(const at::Tensor& self) {
  wait_for_current_stream(host_accessible_device_of(self, "cpu_view"));
  return cpu_view_of(self);
}

// The CPU runs a compiled host graph's code on its hal inputs now: each device's current stream must first
// finish what it queued. Waits once a device, the first time one of its tensors comes by.
class StreamWaits {
 public:
  void wait_for(const at::Tensor& hal_tensor, const char* op) {
    const auto index = host_accessible_device_of(hal_tensor, op);
    if (std::find(waited_.begin(), waited_.end(), index) == waited_.end()) {
      wait_for_current_stream(index);
      waited_.push_back(index);
    }
  }

 private:
  c10::SmallVector<c10::DeviceIndex, 2> waited_;
};

// The inputs of a compiled host graph as the CPU code takes them, in one call at its top: each hal tensor as its
// CPU view (cached_cpu_view_of), anything else (CPU tensors, sizes) as it is. The CPU reads the memory from now
// on, so the work queued on each device's current stream is waited for first (stream order), once per device.
PyObject* compile_host_views(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  THPObjectPtr out(PyTuple_New(nargs));
  if (!out) return nullptr;
  StreamWaits waits;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject* arg = args[i];
    PyObject* item = nullptr;
    if (THPVariable_Check(arg)) {
      const at::Tensor& t = THPVariable_Unpack(arg);
      if (is_hal(t)) {
        waits.wait_for(t, "compile_host_views");
        item = THPVariable_Wrap(cached_cpu_view_of(t));
        if (item == nullptr) return nullptr;
      }
    }
    if (item == nullptr) {
      Py_INCREF(arg);
      item = arg;
    }
    PyTuple_SET_ITEM(out.get(), i, item);
  }
  return out.release();
  END_HANDLE_TH_ERRORS
}

// compile_host_views' wait without the views, for the hal inputs that the compiled code hands only to its C++
// kernels: a kernel takes a data pointer, which a hal tensor of a host-accessible device gives as it is.
PyObject* compile_host_wait(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  StreamWaits waits;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (THPVariable_Check(args[i]) && is_hal(THPVariable_Unpack(args[i]))) {
      waits.wait_for(THPVariable_Unpack(args[i]), "compile_host_wait");
    }
  }
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

// The hal tensor over a CPU tensor's bytes, for the compiled code's outputs. Without a copy where those bytes
// are hal:device's memory (a view of a hal tensor, or a buffer from host_buffer_allocator); a copy otherwise
// (memory an extern CPU kernel allocated itself, or a constant).
at::Tensor hal_view(const at::Tensor& self, c10::DeviceIndex index) {
  TORCH_CHECK(self.device().is_cpu(), "torch_hal: a compiled host graph's output is on ", self.device(),
              " where the CPU code leaves CPU tensors");
  const c10::Storage* root = viewed_storage(self.storage());
  const bool hal_memory = root != nullptr ? root->device() == c10::Device(kHal, index)
                                          : holds_captured_memory(*self.storage().unsafeGetStorageImpl());
  if (!hal_memory) return new_hal_tensor_from(self, index);
  return tensor_over(storage_on(self.storage(), c10::Device(kHal, index)), self, c10::DispatchKey::PrivateUse1);
}

// The outputs of a compiled host graph as its caller takes them, in one call at its return: devices[i] is the
// hal device whose tensor output i was before the graph became a CPU graph (its CPU result leaves as a hal
// tensor over the same bytes), or -1 for an output that stays as it is (a CPU tensor, a size, None). One
// Python call for all outputs rather than an operator call each: a training graph's forward returns every
// activation its backward saves, and a dispatcher call costs microseconds.
PyObject* compile_host_outputs(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs == 2 && PyTuple_Check(args[0]) && PyTuple_Check(args[1]),
                   "compile_host_outputs(outputs, devices) takes two tuples");
  PyObject *outputs = args[0], *devices = args[1];
  const Py_ssize_t n = PyTuple_GET_SIZE(outputs);
  TORCH_CHECK(n == PyTuple_GET_SIZE(devices), "compile_host_outputs: ", n, " outputs but ",
              PyTuple_GET_SIZE(devices), " devices");
  THPObjectPtr out(PyTuple_New(n));
  if (!out) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* value = PyTuple_GET_ITEM(outputs, i);
    const long device = PyLong_AsLong(PyTuple_GET_ITEM(devices, i));
    if (device == -1 && PyErr_Occurred()) throw python_error();
    PyObject* item = nullptr;
    if (device >= 0 && THPVariable_Check(value)) {
      const auto index = checked_device_index(static_cast<int>(device));
      const at::Tensor& t = THPVariable_Unpack(value);
      if (is_hal(t) && t.device().index() == index) {  // a buffer from host_output_allocator
        Py_INCREF(value);
        item = value;
      } else {
        item = THPVariable_Wrap(hal_view(t, index));
        if (item == nullptr) return nullptr;
      }
    } else {
      Py_INCREF(value);
      item = value;
    }
    PyTuple_SET_ITEM(out.get(), i, item);
  }
  return out.release();
  END_HANDLE_TH_ERRORS
}

PyMethodDef methods[] = {
    {"compile_host_views", fastcall(compile_host_views), METH_FASTCALL, nullptr},
    {"compile_host_outputs", fastcall(compile_host_outputs), METH_FASTCALL, nullptr},
    {"compile_host_wait", fastcall(compile_host_wait), METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

TORCH_LIBRARY(torch_hal, m) {
  m.def("cpu_view(Tensor(a) self) -> Tensor(a)");
}

TORCH_LIBRARY_IMPL(torch_hal, PrivateUse1, m) {
  m.impl("cpu_view", TORCH_FN(cpu_view));
}

void bind_compile_host_graph(py::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), methods) != 0) throw py::error_already_set();
}

}  // namespace torch_hal
