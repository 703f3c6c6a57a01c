#include "interop/shared_storage.h"

#include <ATen/core/Tensor.h>
#include <c10/core/StorageImpl.h>
#include <c10/core/TensorImpl.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include <cstring>
#include <memory>
#include <string>

#include "hal/ipc.h"
#include "hal/streams.h"
#include "runtime/allocator.h"
#include "runtime/hal_context.h"
#include "runtime/python_gil.h"

namespace py = pybind11;

namespace torch_hal {
namespace {

// The DataPtr context of an imported storage: one reference to the mapping (hal::ipc_open).
void release_mapping(void* context) {
  GilReleasedAroundCoreLock no_gil;
  delete static_cast<std::shared_ptr<void>*>(context);
}

// What another process needs to map `tensor`'s whole storage: the device, the handle (its bytes, and a file
// descriptor valid while the memory lives, or -1), the allocation's size and the storage's offset in it.
py::dict export_storage(const at::Tensor& tensor) {
  TORCH_CHECK_VALUE(tensor.device().type() == kHal, "ipc_export: a hal tensor, not one on ", tensor.device());
  const c10::DeviceIndex index = tensor.device().index();
  const c10::Storage& storage = tensor.storage();
  hal::IpcExport out;
  {
    GilReleasedAroundCoreLock no_gil;
    out = call_core([&] {
      // The other process cannot wait on this one's streams: what was issued so far must have happened.
      hal::synchronize_device(index);
      return hal::ipc_export(index, storage.data_ptr().get());
    });
  }
  py::dict d;
  d["device"] = static_cast<int>(index);
  d["handle"] = py::bytes(reinterpret_cast<const char*>(out.handle.bytes), out.handle.num_bytes);
  d["fd"] = out.handle.fd;
  d["allocation_size"] = out.handle.allocation_size;
  d["offset"] = out.offset;
  d["nbytes"] = storage.nbytes();
  return d;
}

// A uint8 hal tensor over `nbytes` of another process's allocation, from `offset` in it; its storage is
// what the importer builds its tensor on. `fd` stays the caller's.
at::Tensor open_storage(int device, const py::bytes& handle_bytes, int fd, uint64_t allocation_size, uint64_t offset,
                        uint64_t nbytes) {
  const auto index = static_cast<c10::DeviceIndex>(device);
  torch_hal::device(index);  // a clear error for an index that does not exist here
  const std::string bytes = handle_bytes;
  TORCH_CHECK_VALUE(!bytes.empty() && bytes.size() <= HAL_IPC_HANDLE_BYTES, "ipc_open: a handle of ", bytes.size(),
                    " bytes");
  TORCH_CHECK_VALUE(offset <= allocation_size && nbytes <= allocation_size - offset, "ipc_open: ", nbytes,
                    " bytes from offset ", offset, " do not fit an allocation of ", allocation_size, " bytes");
  hal_ipc_handle_t handle{};
  handle.struct_size = sizeof(handle);
  handle.num_bytes = static_cast<uint32_t>(bytes.size());
  handle.fd = fd;
  handle.allocation_size = allocation_size;
  std::memcpy(handle.bytes, bytes.data(), bytes.size());

  std::shared_ptr<void> mapping;
  {
    GilReleasedAroundCoreLock no_gil;
    mapping = call_core([&] { return hal::ipc_open(device, handle); });
  }
  void* data = static_cast<char*>(mapping.get()) + offset;
  c10::DataPtr data_ptr(data, new std::shared_ptr<void>(std::move(mapping)), &release_mapping,
                        c10::Device(kHal, index));
  // Not resizable: the memory is the other process's allocation, fixed in size.
  auto storage = c10::make_intrusive<c10::StorageImpl>(c10::StorageImpl::use_byte_size_t(),
                                                       static_cast<int64_t>(nbytes), std::move(data_ptr),
                                                       device_allocator(), /*resizable=*/false);
  at::Tensor out = at::detail::make_tensor<c10::TensorImpl>(
      c10::Storage(std::move(storage)), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      caffe2::TypeMeta::Make<uint8_t>());
  out.unsafeGetTensorImpl()->set_sizes_contiguous({static_cast<int64_t>(nbytes)});
  return out;
}

}  // namespace

void bind_ipc(py::module_& m) {
  m.def("ipc_supported", [](int index) {
    return call_core([&] { return hal::ipc_supported(index); });
  });
  m.def("ipc_export", &export_storage);
  m.def("ipc_open", &open_storage);
}

}  // namespace torch_hal
