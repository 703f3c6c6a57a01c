#include "tensor_bridge.h"

#include <ATen/EmptyTensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/CPUAllocator.h>

#include <algorithm>
#include <array>
#include <atomic>

#include "allocator.h"
#include "hal/copy_engine.h"
#include "hal/streams.h"
#include "hal_context.h"

namespace torch_hal {
namespace {

// The byte range [first, last) of the storage that the tensor's elements touch.
std::pair<int64_t, int64_t> covering_bytes(const at::Tensor& t) {
  if (t.numel() == 0) return {0, 0};
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t reach = (t.size(d) - 1) * t.stride(d);
    (reach < 0 ? lo : hi) += reach;
  }
  const int64_t item = static_cast<int64_t>(t.element_size());
  return {lo * item, (hi + 1) * item};
}

char* storage_base(const at::Tensor& t) {
  return static_cast<char*>(const_cast<void*>(t.storage().data_ptr().get()));
}

// A CPU tensor that owns `bytes` bytes of host memory and views them with t's geometry, shifted so the
// covering range starts at byte 0.
at::Tensor host_twin(const at::Tensor& t, int64_t first_byte, int64_t bytes) {
  auto buffer = at::empty({bytes}, at::TensorOptions().dtype(at::kByte).device(at::kCPU));
  const int64_t offset_elems = t.storage_offset() - first_byte / static_cast<int64_t>(t.element_size());
  return at::empty({0}, t.options().device(at::kCPU))
      .set_(buffer.storage(), offset_elems, t.sizes(), t.strides());
}

at::Tensor make_cpu_alias(const at::Tensor& t) {
  const auto& storage = t.storage();
  // A non-owning view of the hal bytes. It is resizable through the CPU allocator so that out= kernels
  // may grow it; inside an OutputCaptureScope the new memory is hal memory, adopted afterwards.
  c10::Storage alias(c10::Storage::use_byte_size_t(), storage.nbytes(),
                     c10::DataPtr(const_cast<void*>(storage.data_ptr().get()), c10::Device(c10::DeviceType::CPU)),
                     c10::GetCPUAllocator(), /*resizable=*/true);
  auto out = at::detail::make_tensor<c10::TensorImpl>(std::move(alias), c10::DispatchKeySet(c10::DispatchKey::CPU),
                                                      t.dtype());
  out.unsafeGetTensorImpl()->set_sizes_and_strides(t.sizes(), t.strides(), t.storage_offset());
  return out;
}

// An alias still describes `t` exactly: same bytes, dtype and geometry. Then it can stand in for `t`
// again, whatever happened in between (even if `t` is a different tensor at the same address).
bool alias_matches(const at::Tensor& alias, const at::Tensor& t) {
  const auto& a = alias.storage();
  const auto& h = t.storage();
  return a.data_ptr().get() == h.data_ptr().get() && a.nbytes() == h.nbytes() && alias.dtype() == t.dtype() &&
         alias.storage_offset() == t.storage_offset() && alias.sizes() == t.sizes() && alias.strides() == t.strides();
}

}  // namespace

bool is_hal(const at::Tensor& t) { return t.defined() && t.device().type() == kHal; }

bool is_host_accessible(c10::DeviceIndex index) {
  // A device's memory kind never changes, and this sits on every op's path: remember it per device.
  constexpr int kCached = 64;
  static std::atomic<int8_t> cache[kCached] = {};  // 0 unknown, 1 yes, 2 no
  if (index >= 0 && index < kCached) {
    const int8_t known = cache[index].load(std::memory_order_relaxed);
    if (known != 0) return known == 1;
    const bool accessible = device(index).host_accessible();
    cache[index].store(accessible ? 1 : 2, std::memory_order_relaxed);
    return accessible;
  }
  return device(index).host_accessible();
}

void wait_for_current_stream(c10::DeviceIndex index) {
  call_core([&] {
    const auto stream = hal::current_stream(index);
    if (!hal::query_stream(index, stream)) hal::synchronize_stream(index, stream);
  });
}

at::Tensor cpu_alias(const at::Tensor& t) {
  // Making an alias costs three allocations, as much as a small op itself; the same tensors (weights,
  // activations in a loop) come back op after op. So each thread keeps its last few aliases and reuses one
  // when it still matches and nothing else holds it (a kernel may have kept it, e.g. inside a view).
  struct Entry {
    const c10::TensorImpl* hal = nullptr;
    at::Tensor alias;
  };
  constexpr size_t kEntries = 8;
  thread_local std::array<Entry, kEntries> cache;
  thread_local size_t next_victim = 0;
  const auto* key = t.unsafeGetTensorImpl();
  for (auto& e : cache) {
    if (e.hal == key && e.alias.use_count() == 1 && alias_matches(e.alias, t)) return e.alias;
  }
  Entry& slot = cache[next_victim++ % kEntries];
  slot.hal = key;
  slot.alias = make_cpu_alias(t);
  return slot.alias;
}

at::Tensor download(const at::Tensor& t) {
  const auto [first, last] = covering_bytes(t);
  auto host = host_twin(t, first, last - first);
  if (last > first) {
    const auto index = t.device().index();
    call_core([&] {
      hal::copy_device_to_host(index, storage_base(host), storage_base(t) + first, last - first,
                               hal::current_stream(index), /*dst_is_pinned=*/false, /*non_blocking=*/false);
    });
  }
  return host;
}

void upload(const at::Tensor& dst, const at::Tensor& values) {
  const auto [first, last] = covering_bytes(dst);
  if (last <= first) return;
  // Dense destinations are written whole; others are read first so bytes between elements survive.
  auto host = dst.is_non_overlapping_and_dense() ? host_twin(dst, first, last - first) : download(dst);
  host.copy_(values);
  const auto index = dst.device().index();
  call_core([&] {
    hal::copy_host_to_device(index, storage_base(dst) + first, storage_base(host), last - first,
                             hal::current_stream(index), /*src_is_pinned=*/false, /*non_blocking=*/false);
  });
}

at::Tensor hal_tensor_over(c10::Storage storage, const at::Tensor& like) {
  auto out = at::detail::make_tensor<c10::TensorImpl>(std::move(storage),
                                                      c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), like.dtype());
  out.unsafeGetTensorImpl()->set_sizes_and_strides(like.sizes(), like.strides(), like.storage_offset());
  return out;
}

at::Tensor new_hal_tensor_from(const at::Tensor& values, c10::DeviceIndex index) {
  const bool dense = values.is_non_overlapping_and_dense();
  auto options = values.options().device(c10::Device(kHal, index));
  auto out = dense ? at::empty_strided(values.sizes(), values.strides(), options)
                   : at::empty(values.sizes(), options);
  if (is_host_accessible(index)) {
    wait_for_current_stream(index);
    cpu_alias(out).copy_(values);
  } else {
    upload(out, values);
  }
  return out;
}

}  // namespace torch_hal
