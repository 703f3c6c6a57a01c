// Native hal kernels for what every backend must provide itself: creating tensors in hal memory, views
// (which share hal storage), resizing, storage swaps, record_stream and shallow-copy compatibility. Copies and
// the reading of one scalar are transfer/copy_ops.cpp's.
#include <ATen/Context.h>
#include <ATen/EmptyTensor.h>
#include <ATen/InferSize.h>
#include <ATen/native/Resize.h>
#include <ATen/native/ResizeCommon.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "dispatch/kernel_table.h"
#include "dispatch/tensor_bridge.h"
#include "runtime/allocator.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

// torch.use_deterministic_algorithms(True) fills new memory (NaN, or the dtype's largest integer) on CPU and cuda,
// so that a program that reads it before writing gives the same result each run: hal's cache would hand back old
// values instead.
bool fill_uninitialized_memory() {
  const auto& context = at::globalContext();
  return context.deterministicAlgorithms() && context.deterministicFillUninitializedMemory();
}

at::Tensor filled_if_deterministic(at::Tensor t) {
  if (C10_UNLIKELY(fill_uninitialized_memory())) at::native::fill_empty_deterministic_(t);
  return t;
}

c10::DeviceIndex target_device(std::optional<c10::Device> device) {
  if (!device.has_value() || !device->has_index()) return current_device();
  TORCH_CHECK(device->type() == kHal, "expected a hal device, got ", *device);
  return device->index();
}

at::Tensor empty_memory_format(c10::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout, std::optional<c10::Device> device,
                               std::optional<bool> pin_memory, std::optional<c10::MemoryFormat> memory_format) {
  const auto index = target_device(device);
  torch_hal::device(index);  // a clear error for hal:N that does not exist
  c10::DeviceGuard guard(c10::Device(kHal, index));
  return filled_if_deterministic(at::detail::empty_generic(size, device_allocator(),
                                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                                           c10::dtype_or_default(dtype), memory_format));
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout> layout, std::optional<c10::Device> device,
                         std::optional<bool> pin_memory) {
  const auto index = target_device(device);
  torch_hal::device(index);
  c10::DeviceGuard guard(c10::Device(kHal, index));
  return filled_if_deterministic(at::detail::empty_strided_generic(size, stride, device_allocator(),
                                                                   c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                                                   c10::dtype_or_default(dtype)));
}

// Makes the storage of `self` hold at least `nbytes`, keeping its contents (hooks' resizePrivateUse1Bytes).
void ensure_storage_bytes(const at::Tensor& self, size_t nbytes) {
  const auto& storage = self.unsafeGetTensorImpl()->unsafe_storage();
  if (nbytes > storage.nbytes()) at::native::resize_bytes_nocuda(storage, c10::SymInt(static_cast<int64_t>(nbytes)));
}

const at::Tensor& resize_(const at::Tensor& self, c10::IntArrayRef size,
                          std::optional<c10::MemoryFormat> memory_format) {
  auto* impl = self.unsafeGetTensorImpl();
  const size_t old_storage_nbytes = impl->unsafe_storage() ? impl->unsafe_storage().nbytes() : 0;
  at::native::resize_impl_cpu_(impl, size, /*stride=*/std::nullopt, /*resize_storage=*/false);
  if (memory_format.has_value() && *memory_format != c10::MemoryFormat::Preserve) {
    impl->empty_tensor_restride(*memory_format);
  }
  if (self.numel() > 0) {
    ensure_storage_bytes(self, at::detail::computeStorageNbytes(self.sizes(), self.strides(), self.element_size(),
                                                                self.storage_offset()));
  }
  if (C10_UNLIKELY(fill_uninitialized_memory())) {
    at::native::fill_resize_deterministic_(self, static_cast<int64_t>(old_storage_nbytes));
  }
  return self;
}

at::Tensor& set_source_storage_offset(at::Tensor& self, at::Storage source, int64_t offset, c10::IntArrayRef size,
                                      c10::IntArrayRef stride) {
  at::native::checkSetStorage(self, source, offset, size, stride);
  auto* impl = self.unsafeGetTensorImpl();
  impl->set_storage_offset(offset);
  std::optional<c10::IntArrayRef> stride_opt;
  if (stride.data() != nullptr) stride_opt = stride;
  at::native::resize_impl_cpu_(impl, size, stride_opt, /*resize_storage=*/false);
  if (self.numel() > 0) {
    ensure_storage_bytes(self, at::detail::computeStorageNbytes(self.sizes(), self.strides(), self.element_size(),
                                                                self.storage_offset()));
  }
  return self;
}

at::Tensor& set_source_storage(at::Tensor& self, at::Storage source) {
  const int64_t numel = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_source_storage_offset(self, std::move(source), 0, {numel}, {});
}

at::Tensor& set_source_tensor(at::Tensor& self, const at::Tensor& source) {
  if (self.unsafeGetTensorImpl() == source.unsafeGetTensorImpl()) return self;
  return set_source_storage_offset(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty(at::Tensor& self) {
  c10::Storage empty(c10::Storage::use_byte_size_t(), 0, allocate_on(self.device().index(), 0), device_allocator(),
                     /*resizable=*/true);
  return set_source_storage_offset(self, std::move(empty), 0, {0}, {});
}

// Tensor.record_stream(s): the memory is in use on `s` too, so its reuse waits for s's work issued so far.
void record_stream(at::Tensor& self, c10::Stream stream) {
  TORCH_CHECK(stream.device_type() == kHal && stream.device_index() == self.device().index(),
              "record_stream: the stream is on ", stream.device(), " but the tensor is on ", self.device());
  record_data_ptr_on_stream(self.storage().data_ptr(), stream.id());
}

// Whether `from`'s TensorImpl may be shallow-copied into self's (param.data = t, and Module.to(), which
// keeps its Parameter objects, and so tied weights tied, only when this is true). ATen answers true for
// dense tensors of its built-in backends alone; a dense hal tensor is as dense, on either side of a CPU one.
bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  auto dense = [](const at::Tensor& t) {
    return t.layout() == at::kStrided && !t.is_quantized() && (t.is_cpu() || is_hal(t));
  };
  return self.key_set() == from.key_set() || (dense(self) && dense(from));
}

// The device's own work (allocation, views, metadata; copies are transfer/copy_ops.cpp's): recorded as the
// Runtime route of the kernel table, the ops that never take a CPU kernel on any device.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using native::impl_recorded;
  using native::Route;
  impl_recorded(m, Route::Runtime, "_has_compatible_shallow_copy_type", TORCH_FN(has_compatible_shallow_copy_type));
  impl_recorded(m, Route::Runtime, "empty.memory_format", TORCH_FN(empty_memory_format));
  impl_recorded(m, Route::Runtime, "empty_strided", TORCH_FN(empty_strided));
  impl_recorded(m, Route::Runtime, "as_strided", TORCH_FN(at::native::as_strided_tensorimpl));
  impl_recorded(m, Route::Runtime, "view", TORCH_FN(at::native::view));
  // Views are metadata over the same storage on every device: ATen's own implementations only compute
  // sizes and strides. (Every other view op is composite or registered device-agnostic by ATen itself.)
  impl_recorded(m, Route::Runtime, "unfold", TORCH_FN(at::native::unfold));
  impl_recorded(m, Route::Runtime, "view_as_real", TORCH_FN(at::native::view_as_real));
  impl_recorded(m, Route::Runtime, "view_as_complex", TORCH_FN(at::native::view_as_complex));
  impl_recorded(m, Route::Runtime, "_reshape_alias", TORCH_FN(at::native::_reshape_alias));
  impl_recorded(m, Route::Runtime, "resize_", TORCH_FN(resize_));
  impl_recorded(m, Route::Runtime, "set_.source_Storage_storage_offset", TORCH_FN(set_source_storage_offset));
  impl_recorded(m, Route::Runtime, "set_.source_Storage", TORCH_FN(set_source_storage));
  impl_recorded(m, Route::Runtime, "set_.source_Tensor", TORCH_FN(set_source_tensor));
  impl_recorded(m, Route::Runtime, "set_", TORCH_FN(set_empty));
  impl_recorded(m, Route::Runtime, "record_stream", TORCH_FN(record_stream));
}

}  // namespace
}  // namespace torch_hal
