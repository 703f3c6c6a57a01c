#include "python_backend/python_backend.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <utility>

namespace py = pybind11;

struct hal_stream_impl {};
struct hal_event_impl {
  bool timing = false;
  bool recorded = false;
  std::chrono::steady_clock::time_point reached{};
};

namespace torch_hal {
namespace {

thread_local std::array<std::string, kMaxPythonBackends> t_last_errors;

constexpr uint64_t kHostAlignment = 64;

std::string range_text(const void* p, uint64_t size) {
  char text[64];
  std::snprintf(text, sizeof(text), "[%p, +%llu bytes)", p, static_cast<unsigned long long>(size));
  return text;
}

// Reads get_memory_info's answer: a 2-tuple (or list) of ints, 0 <= free <= total < 2**64. False for anything
// else, so that nonsense (negative, free above total, floats, strings) never reaches the allocator's
// arithmetic or the user's mem_get_info. GIL held.
bool read_memory_info(const py::handle info, uint64_t* free_bytes, uint64_t* total_bytes) {
  if (!py::isinstance<py::tuple>(info) && !py::isinstance<py::list>(info)) return false;
  const py::sequence pair = py::reinterpret_borrow<py::sequence>(info);
  if (pair.size() != 2) return false;
  uint64_t values[2];
  for (size_t i = 0; i < 2; ++i) {
    const py::object item = pair[i];
    if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr())) return false;
    values[i] = PyLong_AsUnsignedLongLong(item.ptr());
    if (PyErr_Occurred()) {  // negative or 2**64 and above
      PyErr_Clear();
      return false;
    }
  }
  if (values[0] > values[1]) return false;
  *free_bytes = values[0];
  *total_bytes = values[1];
  return true;
}

}  // namespace

PythonBackend::PythonBackend(int slot, py::object backend, std::string name, std::string description,
                             std::vector<hal_device_properties_t> properties, PythonBackendHooks hooks,
                             py::object memory_copy_type)
    : slot_(slot),
      backend_(std::move(backend)),
      name_(std::move(name)),
      description_(std::move(description)),
      properties_(std::move(properties)),
      hooks_(hooks),
      memory_copy_type_(std::move(memory_copy_type)),
      allocations_(properties_.size()),
      used_(properties_.size(), 0) {}

PythonBackend::~PythonBackend() {
  release_freed_buffers();
  for (size_t device = 0; device < allocations_.size(); ++device) {
    for (auto& [address, a] : allocations_[device]) {
      PyBuffer_Release(&a.view);
      Py_XDECREF(a.owner);
    }
  }
}

hal_status_t PythonBackend::fail(hal_status_t status, std::string message) {
  t_last_errors[slot_] = "Python backend '" + name_ + "': " + std::move(message);
  return status;
}

template <typename F>
hal_status_t PythonBackend::with_gil(const std::string& what, F&& body) {
  if (!python_is_usable()) {
    return fail(HAL_STATUS_UNAVAILABLE, what + ": the Python interpreter is shutting down");
  }
  py::gil_scoped_acquire gil;
  try {
    return body();
  } catch (py::error_already_set& e) {
    // The exception's type and text, and where it was raised: enough to find the bug in the backend.
    std::string type = py::str(e.type().attr("__name__"));
    std::string text = py::str(e.value());
    std::string where;
    if (e.trace()) {
      py::list frames = py::module_::import("traceback").attr("extract_tb")(e.trace());
      if (!frames.empty()) {
        py::object last = frames[frames.size() - 1];
        where = " (at " + py::str(last.attr("filename")).cast<std::string>() + ":" +
                py::str(last.attr("lineno")).cast<std::string>() + ")";
      }
    }
    const bool oom = e.matches(PyExc_MemoryError);
    return fail(oom ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR,
                what + " raised " + type + ": " + text + where);
  } catch (const std::bad_alloc&) {
    return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, what + ": out of host memory");
  } catch (const std::exception& e) {
    return fail(HAL_STATUS_INTERNAL_ERROR, what + ": " + e.what());
  }
}

// ---- lifecycle and discovery (answered from what torch_hal.custom_device gathered) --------------

hal_status_t PythonBackend::initialize() { return HAL_STATUS_SUCCESS; }
void PythonBackend::shutdown() {}
const char* PythonBackend::get_last_error() { return t_last_errors[slot_].c_str(); }

hal_status_t PythonBackend::device_count(int32_t* count) {
  *count = static_cast<int32_t>(properties_.size());
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::get_device_properties(int32_t device, hal_device_properties_t* props) {
  const hal_device_properties_t& p = properties_[device];
  const uint32_t size = std::min<uint32_t>(props->struct_size, sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  if (!hooks_.get_memory_info) {
    std::lock_guard<std::mutex> lock(mutex_);
    *total_bytes = properties_[device].total_memory_bytes;
    *free_bytes = *total_bytes - used_[device];
    return HAL_STATUS_SUCCESS;
  }
  return with_gil("get_memory_info(" + std::to_string(device) + ")", [&]() -> hal_status_t {
    py::object info = backend_.attr("get_memory_info")(device);
    if (!read_memory_info(info, free_bytes, total_bytes)) {
      return fail(HAL_STATUS_DEVICE_ERROR, "get_memory_info(" + std::to_string(device) + ") returned " +
                                               std::string(py::repr(info)) +
                                               ": return (free_bytes, total_bytes), two ints with 0 <= free_bytes "
                                               "<= total_bytes");
    }
    return HAL_STATUS_SUCCESS;
  });
}

// ---- memory ------------------------------------------------------------------------------------

hal_status_t PythonBackend::malloc_device(int32_t device, uint64_t size, void** ptr) {
  const uint64_t capacity = properties_[device].total_memory_bytes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (size > capacity - used_[device]) {
      return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY,
                  "device " + std::to_string(device) + " cannot hold " + std::to_string(size) + " more bytes: " +
                      std::to_string(used_[device]) + " of its " + std::to_string(capacity) +
                      " bytes are in use (PrivateUse1Config(memory=...) or DeviceProperties.total_memory sets it)");
    }
  }
  const std::string what = "allocate_memory(" + std::to_string(size) + ", " + std::to_string(device) + ")";
  return with_gil(what, [&]() -> hal_status_t {
    release_freed_buffers();
    py::object buffer = backend_.attr("allocate_memory")(size, device);
    Allocation a;
    a.size = size;
    if (PyObject_GetBuffer(buffer.ptr(), &a.view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      return fail(HAL_STATUS_DEVICE_ERROR,
                  what + " returned " + std::string(py::str(py::type::of(buffer).attr("__name__"))) +
                      ", which is not a writable contiguous buffer: return a bytearray, a writable memoryview, a numpy "
                      "array or a ctypes array of at least " + std::to_string(size) +
                      " bytes (torch_hal.custom_device.aligned_buffer(size) is one)");
    }
    const auto address = reinterpret_cast<uintptr_t>(a.view.buf);
    std::string problem;
    if (static_cast<uint64_t>(a.view.len) < size) {
      problem = "holds only " + std::to_string(a.view.len) + " of the " + std::to_string(size) + " bytes asked for";
    } else if (address % 16 != 0) {
      problem = "starts at an address that is not 16-byte aligned, which tensors of 16-byte elements need";
    }
    if (!problem.empty()) {
      PyBuffer_Release(&a.view);
      return fail(HAL_STATUS_DEVICE_ERROR, what + " returned a buffer that " + problem +
                                               ": return torch_hal.custom_device.aligned_buffer(size)");
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto [it, inserted] = allocations_[device].try_emplace(address);
      if (!inserted) {
        PyBuffer_Release(&a.view);
        return fail(HAL_STATUS_DEVICE_ERROR, what + " returned a buffer that is already allocated (the same memory "
                                                    "twice): return a new buffer for every call");
      }
      a.owner = buffer.release().ptr();
      it->second = a;
      used_[device] += size;
    }
    *ptr = reinterpret_cast<void*>(address);
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t PythonBackend::free_device(int32_t device, void* ptr) {
  Allocation a;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = allocations_[device].find(reinterpret_cast<uintptr_t>(ptr));
    if (it == allocations_[device].end()) {
      return fail(HAL_STATUS_INVALID_ARGUMENT, "free_device: " + range_text(ptr, 0) + " is not an allocation of device " +
                                                   std::to_string(device));
    }
    a = it->second;
    used_[device] -= a.size;
    allocations_[device].erase(it);
  }
  // The core holds its allocator lock here, and another thread may hold the GIL while it waits for that
  // lock: taking the GIL now could deadlock. free_memory runs on the next Python call instead.
  bool schedule = false;
  {
    std::lock_guard<std::mutex> lock(freed_mutex_);
    freed_.emplace_back(device, a);
    schedule = !release_scheduled_;
    release_scheduled_ = true;
  }
  if (schedule && Py_AddPendingCall(&PythonBackend::release_freed_buffers_callback, this) != 0) {
    std::lock_guard<std::mutex> lock(freed_mutex_);
    release_scheduled_ = false;  // the queue was full: the next allocation releases them
  }
  return HAL_STATUS_SUCCESS;
}

int PythonBackend::release_freed_buffers_callback(void* self) {
  static_cast<PythonBackend*>(self)->release_freed_buffers();
  return 0;
}

void PythonBackend::release_freed_buffers() {
  std::vector<std::pair<int32_t, Allocation>> freed;
  {
    std::lock_guard<std::mutex> lock(freed_mutex_);
    freed.swap(freed_);
    release_scheduled_ = false;
  }
  for (auto& [device, a] : freed) {
    PyBuffer_Release(&a.view);
    py::object owner = py::reinterpret_steal<py::object>(a.owner);
    try {
      backend_.attr("free_memory")(owner, device);
    } catch (py::error_already_set& e) {
      // Nobody waits for this call's result, so the error becomes a warning (an error under -W error),
      // naming the backend: a leaking or broken free_memory must not go unnoticed.
      const std::string message = "torch_hal: Python backend '" + name_ + "': free_memory(device=" +
                                  std::to_string(device) + ") raised " + e.what() +
                                  "; the memory it was asked to free may not have been released";
      if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) {
        PyErr_WriteUnraisable(nullptr);  // the warning itself became an error (-W error): report, never throw
      }
    }
  }
}

// Pinned host memory: plain aligned host memory (a Python backend has no DMA engine to pin for).
hal_status_t PythonBackend::malloc_host(uint64_t size, void** ptr) {
  const uint64_t bytes = (std::max<uint64_t>(size, 1) + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  void* p = bytes >= size ? std::aligned_alloc(kHostAlignment, bytes) : nullptr;
  if (!p) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_host: no " + std::to_string(size) + " bytes of RAM left");
  *ptr = p;
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::free_host(void* ptr) {
  std::free(ptr);
  return HAL_STATUS_SUCCESS;
}

// ---- copies ------------------------------------------------------------------------------------

bool PythonBackend::locate(int32_t device, const void* ptr, uint64_t size, const char* what, Located* out) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto& allocations = allocations_[device];
  auto it = allocations.upper_bound(address);
  if (it != allocations.begin()) {
    --it;
    if (address + size <= it->first + it->second.size) {
      *out = Located{reinterpret_cast<char*>(it->first), it->second.owner, address - it->first};
      return true;
    }
  }
  fail(HAL_STATUS_INVALID_ARGUMENT, std::string(what) + ": " + range_text(ptr, size) +
                                        " is not inside a buffer that allocate_memory returned for device " +
                                        std::to_string(device));
  return false;
}

void PythonBackend::call_copy_hook(const char* method, int32_t device, void* dst, const void* src, uint64_t size,
                                   const Located* dst_at, const Located* src_at) {
  // Views of raw memory, released right after the call so that no Python object outlives the transfer.
  py::object src_view = py::reinterpret_steal<py::object>(
      PyMemoryView_FromMemory(static_cast<char*>(const_cast<void*>(src)), static_cast<Py_ssize_t>(size), PyBUF_READ));
  py::object dst_view = py::reinterpret_steal<py::object>(
      PyMemoryView_FromMemory(static_cast<char*>(dst), static_cast<Py_ssize_t>(size), PyBUF_WRITE));
  if (!src_view || !dst_view) throw py::error_already_set();
  const auto side = [](const Located* at) {
    return at ? std::make_pair(py::reinterpret_borrow<py::object>(at->owner), py::int_(at->offset))
              : std::make_pair(py::object(py::none()), py::int_(0));
  };
  auto [src_buffer, src_offset] = side(src_at);
  auto [dst_buffer, dst_offset] = side(dst_at);
  py::object copy = memory_copy_type_(src_view, dst_view, size, src_buffer, src_offset, dst_buffer, dst_offset);
  // A view that the hook still exports (a numpy array made from it) cannot be released: that is the
  // hook's mistake to keep, and the BufferError is ignored.
  const auto release_views = [&] {
    for (py::object* view : {&src_view, &dst_view}) {
      try {
        view->attr("release")();
      } catch (py::error_already_set&) {
      }
    }
  };
  try {
    backend_.attr(method)(copy, device);
  } catch (...) {
    release_views();
    throw;
  }
  release_views();
}

hal_status_t PythonBackend::memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t) {
  Located at;
  if (size == 0) return HAL_STATUS_SUCCESS;
  if (!locate(device, ptr, size, "memset_async", &at)) return HAL_STATUS_INVALID_ARGUMENT;
  if (!hooks_.copy_to_device) {
    std::memset(ptr, value, size);
    return HAL_STATUS_SUCCESS;
  }
  // The backend moves every byte itself: a fill is a copy of filled host memory.
  return with_gil("copy_to_device (a fill of " + std::to_string(size) + " bytes)", [&]() -> hal_status_t {
    std::vector<unsigned char> pattern(size, static_cast<unsigned char>(value));
    call_copy_hook("copy_to_device", device, ptr, pattern.data(), size, &at, nullptr);
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t PythonBackend::memcpy_async(int32_t device, void* dst, const void* src, uint64_t size,
                                         hal_copy_kind_t kind, hal_stream_t) {
  if (size == 0) return HAL_STATUS_SUCCESS;
  Located dst_at, src_at;
  const bool dst_on_device = kind != HAL_COPY_DEVICE_TO_HOST, src_on_device = kind != HAL_COPY_HOST_TO_DEVICE;
  if (dst_on_device && !locate(device, dst, size, "memcpy_async (destination)", &dst_at)) return HAL_STATUS_INVALID_ARGUMENT;
  if (src_on_device && !locate(device, src, size, "memcpy_async (source)", &src_at)) return HAL_STATUS_INVALID_ARGUMENT;
  const char* method = kind == HAL_COPY_HOST_TO_DEVICE   ? "copy_to_device"
                       : kind == HAL_COPY_DEVICE_TO_HOST ? "copy_from_device"
                                                         : "copy_on_device";
  const bool hooked = kind == HAL_COPY_HOST_TO_DEVICE   ? hooks_.copy_to_device
                      : kind == HAL_COPY_DEVICE_TO_HOST ? hooks_.copy_from_device
                                                        : hooks_.copy_on_device;
  if (!hooked) {
    std::memmove(dst, src, size);  // the default of all three methods, without the GIL
    return HAL_STATUS_SUCCESS;
  }
  return with_gil(std::string(method) + " of " + std::to_string(size) + " bytes", [&]() -> hal_status_t {
    call_copy_hook(method, device, dst, src, size, dst_on_device ? &dst_at : nullptr, src_on_device ? &src_at : nullptr);
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t PythonBackend::memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src,
                                              uint64_t size, hal_stream_t) {
  if (size == 0) return HAL_STATUS_SUCCESS;
  Located dst_at, src_at;
  if (!locate(dst_device, dst, size, "memcpy_peer_async (destination)", &dst_at)) return HAL_STATUS_INVALID_ARGUMENT;
  if (!locate(src_device, src, size, "memcpy_peer_async (source)", &src_at)) return HAL_STATUS_INVALID_ARGUMENT;
  if (!hooks_.copy_on_device) {
    std::memmove(dst, src, size);
    return HAL_STATUS_SUCCESS;
  }
  return with_gil("copy_on_device of " + std::to_string(size) + " bytes", [&]() -> hal_status_t {
    call_copy_hook("copy_on_device", dst_device, dst, src, size, &dst_at, &src_at);
    return HAL_STATUS_SUCCESS;
  });
}

// ---- streams and events: every command completed when it was submitted -------------------------

hal_status_t PythonBackend::stream_create(int32_t, int32_t, hal_stream_t* stream) {
  *stream = new (std::nothrow) hal_stream_impl{};
  return *stream ? HAL_STATUS_SUCCESS : fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "stream_create: out of host memory");
}

hal_status_t PythonBackend::stream_destroy(int32_t, hal_stream_t stream) {
  delete stream;
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::stream_synchronize(int32_t, hal_stream_t) { return HAL_STATUS_SUCCESS; }
hal_status_t PythonBackend::stream_query(int32_t, hal_stream_t) { return HAL_STATUS_SUCCESS; }
hal_status_t PythonBackend::stream_wait_event(int32_t, hal_stream_t, hal_event_t) { return HAL_STATUS_SUCCESS; }

hal_status_t PythonBackend::event_create(int32_t, hal_event_flags_t flags, hal_event_t* event) {
  *event = new (std::nothrow) hal_event_impl{};
  if (!*event) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "event_create: out of host memory");
  (*event)->timing = (flags & HAL_EVENT_FLAG_TIMING) != 0;
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::event_destroy(int32_t, hal_event_t event) {
  delete event;
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::event_record(int32_t, hal_event_t event, hal_stream_t) {
  event->recorded = true;
  event->reached = std::chrono::steady_clock::now();
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::event_query(int32_t, hal_event_t) { return HAL_STATUS_SUCCESS; }
hal_status_t PythonBackend::event_synchronize(int32_t, hal_event_t) { return HAL_STATUS_SUCCESS; }

hal_status_t PythonBackend::event_elapsed_ms(int32_t, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  if (!start->recorded || !end->recorded) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  *ms = std::chrono::duration<float, std::milli>(end->reached - start->reached).count();
  return HAL_STATUS_SUCCESS;
}

hal_status_t PythonBackend::device_synchronize(int32_t device) {
  if (!hooks_.synchronize) return HAL_STATUS_SUCCESS;
  return with_gil("synchronize(" + std::to_string(device) + ")", [&]() -> hal_status_t {
    backend_.attr("synchronize")(device);
    return HAL_STATUS_SUCCESS;
  });
}

}  // namespace torch_hal
