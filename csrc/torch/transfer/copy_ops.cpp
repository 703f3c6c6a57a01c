// The transfer policy of hal tensors: copy_ (_copy_from, _copy_from_and_resize) from and to hal memory, and
// the reading of one scalar (_local_scalar_dense). Which path a copy takes (ATen's CPU copy on host-accessible
// memory, raw transfers, the device's strided copy kernel, the host's conversion, another accelerator's
// runtime) is decided here alone; the paths themselves are the core's copy engine (hal/copy_engine.h),
// copy_kernel.h and accelerator_copy.h.
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <torch/library.h>

#include "dispatch/kernel_table.h"
#include "dispatch/native_launch.h"
#include "dispatch/tensor_bridge.h"
#include "hal/copy_engine.h"
#include "hal/streams.h"
#include "profiler/device_spans.h"
#include "runtime/hal_context.h"
#include "transfer/accelerator_copy.h"
#include "transfer/copy_kernel.h"

namespace torch_hal {
namespace {

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

// Copies and the reading of one scalar are the device's own work: the Runtime route of the kernel table, as
// the storage ops of ops/tensor_storage_ops.cpp.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using native::impl_recorded;
  using native::Route;
  impl_recorded(m, Route::Runtime, "_copy_from", TORCH_FN(copy_from));
  impl_recorded(m, Route::Runtime, "_copy_from_and_resize", TORCH_FN(copy_from_and_resize));
  impl_recorded(m, Route::Runtime, "_local_scalar_dense", TORCH_FN(local_scalar_dense));
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
