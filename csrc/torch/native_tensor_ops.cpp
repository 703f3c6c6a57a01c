// Native hal kernels for what every backend must provide itself: creating tensors in hal memory,
// views (which share hal storage), resizing, storage swaps, and reading one scalar.
#include <ATen/Context.h>
#include <ATen/MemoryOverlap.h>
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

#include "accelerator_copy.h"
#include "allocator.h"
#include "hal/copy_engine.h"
#include "native/copy_kernel.h"
#include "native/kernel_table.h"
#include "native/native_launch.h"
#include "hal/streams.h"
#include "hal_context.h"
#include "profiler/device_spans.h"
#include "tensor_bridge.h"

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

at::Scalar local_scalar_dense(const at::Tensor& self) {
  const auto host = is_host_accessible(self.device().index()) ? (wait_for_current_stream(self.device().index()),
                                                                   cpu_alias(self))
                                                              : download(self);
  return host.item();
}

// A view of t's memory without the conjugate and negative bits: the stored values, as they are in memory.
at::Tensor without_math_bits(const at::Tensor& t) {
  at::Tensor raw = t.alias();
  raw.unsafeGetTensorImpl()->_set_conj(false);
  raw.unsafeGetTensorImpl()->_set_neg(false);
  return raw;
}

// copy_ where either side carries a lazy conj() or neg() bit. The byte paths below move stored values, so
// the bits are applied on the CPU: src's values are materialized there, then stored so that dst reads them.
// (Such copies reach _copy_from only through the fallthrough registered below: ATen's Conjugate fallback
// would otherwise materialize src with clone, whose copy_ comes back here with the bit still set, forever.)
at::Tensor copy_with_math_bits(const at::Tensor& src, const at::Tensor& dst) {
  at::Tensor values = src;
  if (is_hal(src)) {
    values = without_math_bits(src).cpu();
    if (src.is_conj()) values = values.conj();
    if (src.is_neg()) values = values._neg_view();
  }
  values = values.resolve_conj().resolve_neg();
  if (!is_hal(dst)) {
    dst.copy_(values);  // ATen's CPU copy honours dst's own bits
    return dst;
  }
  if (dst.is_conj()) values = values.conj().resolve_conj();
  if (dst.is_neg()) values = values.neg();
  without_math_bits(dst).copy_(values);
  return dst;
}

// copy_ from or to a hal tensor. Host-accessible memory is copied by ATen's CPU copy (dtype conversion,
// any strides, broadcasting) on aliases; other devices take raw transfers when both sides share dtype
// and dense layout, else the download/upload path.
at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  const at::Tensor& src = self;
  const bool src_hal = is_hal(src), dst_hal = is_hal(dst);
  if (is_accelerator_copy(src, dst)) {
    copy_accelerator_tensor(src, dst);
    return dst;
  }
  TORCH_CHECK(src_hal || src.device().is_cpu(), "hal: cannot copy from ", src.device(), " to ", dst.device(),
              "; copy through the CPU first");
  TORCH_CHECK(dst_hal || dst.device().is_cpu(), "hal: cannot copy from ", src.device(), " to ", dst.device(),
              "; copy through the CPU first");
  if (dst.numel() == 0) return dst;
  // ATen's copy_ hands devices it does not know to _copy_from before its TensorIterator runs the overlap
  // checks, so they are ours: a destination whose elements alias each other, or that partly overlaps its
  // source (a[1:].copy_(a[:-1])), raises as on CPU and cuda instead of giving order-dependent values.
  at::assert_no_internal_overlap(dst);
  at::assert_no_partial_overlap(dst, src);
  if (src.is_conj() || src.is_neg() || dst.is_conj() || dst.is_neg()) return copy_with_math_bits(src, dst);
  const bool src_direct = !src_hal || is_host_accessible(src.device().index());
  const bool dst_direct = !dst_hal || is_host_accessible(dst.device().index());

  if (src_direct && dst_direct) {
    if (src_hal) wait_for_current_stream(src.device().index());
    if (dst_hal && (!src_hal || dst.device() != src.device())) wait_for_current_stream(dst.device().index());
    auto cpu_dst = dst_hal ? cpu_alias(dst) : dst;
    // The CPU's copy is the device's copy here: a profiler sees it as one, on the device's stream.
    hal::DeviceSpan span = profiler::copy_span(src, dst);
    cpu_dst.copy_(src_hal ? cpu_alias(src) : src);
    span.end();
    return dst;
  }

  const bool same_layout = src.dtype() == dst.dtype() && same_dense_layout(src, dst);
  const size_t nbytes = src.numel() * src.element_size();
  if (same_layout && src_hal && dst_hal) {
    // Device-to-device copies never block the host, as on CUDA: they are ordered on the stream.
    const auto d = dst.device().index();
    call_core([&] {
      hal::copy_device_to_device(d, first_element_byte(dst), src.device().index(), first_element_byte(src), nbytes,
                                 hal::current_stream(d), /*non_blocking=*/true);
    });
    return dst;
  }
  if (same_layout && !src_hal) {
    const auto d = dst.device().index();
    call_core([&] {
      hal::copy_host_to_device(d, first_element_byte(dst), first_element_byte(src), nbytes, hal::current_stream(d),
                               hal::is_pinned(src.storage().data_ptr().get()), non_blocking);
    });
    return dst;
  }
  if (same_layout && !dst_hal) {
    const auto s = src.device().index();
    call_core([&] {
      hal::copy_device_to_host(s, first_element_byte(dst), first_element_byte(src), nbytes, hal::current_stream(s),
                               hal::is_pinned(dst.storage().data_ptr().get()), non_blocking);
    });
    return dst;
  }
  // Differing dtype or layout, where the adapter has a strided copy kernel: convert on the device, and
  // move only dense bytes between host and device.
  if (src_hal && dst_hal && src.device() == dst.device() && native::copy_on_device(dst, src)) return dst;
  if (!src_hal && dst_hal && native::has_native_kernels(dst.device().index())) {
    const at::Tensor dense_src = src.contiguous();
    at::Tensor staged = at::empty(dense_src.sizes(), dense_src.options().device(dst.device()));
    copy_from(dense_src, staged, non_blocking);
    if (native::copy_on_device(dst, staged)) return dst;
  }
  if (src_hal && !dst_hal && native::has_native_kernels(src.device().index())) {
    // The device's copy in dst's own dense layout, so that the bytes then move as they are (a dst that is not
    // dense gets a contiguous one, and the CPU's copy_ places its values).
    const bool dense_dst = dst.is_non_overlapping_and_dense();
    at::Tensor compact = dense_dst ? at::empty_strided(dst.sizes(), dst.strides(), src.options().dtype(dst.dtype()))
                                   : at::empty(dst.sizes(), src.options().dtype(dst.dtype()));
    if (native::copy_on_device(compact, src)) {
      if (dense_dst) return copy_from(compact, dst, non_blocking);
      dst.copy_(compact.cpu());
      return dst;
    }
  }
  // Differing dtype or layout: convert on the host.
  const at::Tensor host_src = src_hal ? (src_direct ? cpu_alias(src) : download(src)) : src;
  if (dst_hal) {
    upload(dst, host_src);
  } else {
    dst.copy_(host_src);
  }
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copy_from(self, dst, false);
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

// The device's own work (allocation, views, copies, metadata): recorded as the Runtime route of the kernel
// table, the ops that never take a CPU kernel on any device.
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
  impl_recorded(m, Route::Runtime, "_copy_from", TORCH_FN(copy_from));
  impl_recorded(m, Route::Runtime, "_copy_from_and_resize", TORCH_FN(copy_from_and_resize));
  impl_recorded(m, Route::Runtime, "_local_scalar_dense", TORCH_FN(local_scalar_dense));
  impl_recorded(m, Route::Runtime, "record_stream", TORCH_FN(record_stream));
}

// _copy_from passes the conjugate and negative keys straight to the hal kernel, which applies the bits
// itself (copy_with_math_bits).
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}

}  // namespace
}  // namespace torch_hal
