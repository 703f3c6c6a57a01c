#include "dispatch/tensor_bridge.h"

#include <ATen/EmptyTensor.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/CPUAllocator.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <utility>

#include "hal/copy_engine.h"
#include "hal/streams.h"
#include "runtime/allocator.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

// The values a thread made last for a few keys, replaced oldest first: the CPU storages and aliases below are
// asked for again and again for the same hal tensors, op after op.
template <class Key, class Value, size_t N = 8>
class RecentValues {
 public:
  // The kept value of `key` that `still_valid` accepts, or nullptr.
  template <class Valid>
  const Value* find(Key key, Valid&& still_valid) const {
    for (const auto& e : entries_) {
      if (e.key == key && still_valid(e.value)) return &e.value;
    }
    return nullptr;
  }
  const Value& keep(Key key, Value value) {
    Entry& slot = entries_[next_victim_++ % N];
    slot.key = key;
    slot.value = std::move(value);
    return slot.value;
  }

 private:
  struct Entry {
    Key key{};
    Value value;
  };
  std::array<Entry, N> entries_;
  size_t next_victim_ = 0;
};

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

// A CPU storage over the bytes of a hal storage. It does not own them, and it is resizable through the CPU
// allocator so that out= kernels may grow it; inside an OutputCaptureScope the new memory is hal memory, adopted
// afterwards. Each thread keeps the last few, one per hal storage: aliases of the same hal storage then share
// one CPU storage, which is how ATen's overlap checks (and its views, is_alias_of, ...) recognize them.
c10::Storage cpu_storage_over(const c10::Storage& hal) {
  thread_local RecentValues<const c10::StorageImpl*, c10::Storage> cache;
  void* data = const_cast<void*>(hal.data_ptr().get());
  // A kernel that grew an alias moved its CPU storage to new memory: then the entry no longer describes `hal`.
  // (An entry left by a freed hal storage whose address was reused describes the same bytes, so it still serves.)
  if (const c10::Storage* kept = cache.find(hal.unsafeGetStorageImpl(), [&](const c10::Storage& cpu) {
        return cpu.data_ptr().get() == data && cpu.nbytes() == hal.nbytes();
      })) {
    return *kept;
  }
  return cache.keep(hal.unsafeGetStorageImpl(),
                    c10::Storage(c10::Storage::use_byte_size_t(), hal.nbytes(),
                                 c10::DataPtr(data, c10::Device(c10::DeviceType::CPU)), c10::GetCPUAllocator(),
                                 /*resizable=*/true));
}

// The lazy conjugate and negative bits of `from` on a CPU tensor made for it. ATen hands them to the kernels that
// apply them themselves (mm, addmm, bmm, dot, ... take a conjugated operand as it is): a CPU tensor without them
// would give those kernels other values (issue 39: x.conj() @ y, cov and corrcoef of complex tensors were wrong).
at::Tensor with_math_bits_of(at::Tensor cpu, const at::Tensor& from) {
  if (C10_UNLIKELY(from.is_conj())) cpu.unsafeGetTensorImpl()->_set_conj(true);
  if (C10_UNLIKELY(from.is_neg())) cpu.unsafeGetTensorImpl()->_set_neg(true);
  return cpu;
}

at::Tensor make_cpu_alias(const at::Tensor& t) {
  auto out = at::detail::make_tensor<c10::TensorImpl>(cpu_storage_over(t.storage()),
                                                      c10::DispatchKeySet(c10::DispatchKey::CPU), t.dtype());
  out.unsafeGetTensorImpl()->set_sizes_and_strides(t.sizes(), t.strides(), t.storage_offset());
  return with_math_bits_of(std::move(out), t);
}

// An alias still describes `t` exactly: same bytes, dtype and geometry. Then it can stand in for `t`
// again, whatever happened in between (even if `t` is a different tensor at the same address).
bool alias_matches(const at::Tensor& alias, const at::Tensor& t) {
  const auto& a = alias.storage();
  const auto& h = t.storage();
  return a.data_ptr().get() == h.data_ptr().get() && a.nbytes() == h.nbytes() && alias.dtype() == t.dtype() &&
         alias.storage_offset() == t.storage_offset() && alias.sizes() == t.sizes() && alias.strides() == t.strides() &&
         alias.is_conj() == t.is_conj() && alias.is_neg() == t.is_neg();
}

}  // namespace

bool is_hal(const at::Tensor& t) { return t.defined() && t.device().type() == kHal; }

// Whether a and b (same sizes) lay their elements out alike and densely, so their bytes can move as they are. The
// stride of a dimension of size 1 is never used (PyTorch leaves any value there, e.g. 7 in as_strided((2, 1, 2),
// (1, 7, 2)), or what unfold gives): comparing it would send equal layouts down the converting paths, which
// ended in this same test again, a recursion without end (a crash on the GPU, issue 39).
bool same_dense_layout(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || !a.is_non_overlapping_and_dense() || !b.is_non_overlapping_and_dense()) return false;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
  }
  return true;
}

char* first_element_byte(const at::Tensor& t) {
  return static_cast<char*>(const_cast<void*>(t.storage().data_ptr().get())) + t.storage_offset() * t.element_size();
}

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
  thread_local RecentValues<const c10::TensorImpl*, at::Tensor> cache;
  if (const at::Tensor* kept = cache.find(t.unsafeGetTensorImpl(), [&](const at::Tensor& alias) {
        return alias.use_count() == 1 && alias_matches(alias, t) &&
               alias.storage().is_alias_of(cpu_storage_over(t.storage()));
      })) {
    return *kept;
  }
  return cache.keep(t.unsafeGetTensorImpl(), make_cpu_alias(t));
}

namespace {

void copy_to_host(const at::Tensor& t, int64_t first, int64_t last, void* host) {
  if (last <= first) return;
  const auto index = t.device().index();
  call_core([&] {
    hal::copy_device_to_host(index, host, storage_base(t) + first, last - first, hal::current_stream(index),
                             /*dst_is_pinned=*/false, /*non_blocking=*/false);
  });
}

// Writes `values` into `host`, a host twin of a destination whose elements share memory (expanded, or an
// as_strided view that repeats elements), which ATen's copy_ refuses: through each element's position in the
// twin's buffer. Elements at one position get the same value where the op wrote one (fill_, masked_fill_ of an
// expanded tensor); otherwise one of them, as on CPU.
void write_repeating_elements(const at::Tensor& host, const at::Tensor& values) {
  const int64_t buffer_elements = static_cast<int64_t>(host.storage().nbytes() / host.element_size());
  const at::Tensor buffer = at::empty({0}, host.options()).set_(host.storage(), 0, {buffer_elements}, {1});
  const at::Tensor positions = at::arange(buffer_elements, host.options().dtype(at::kLong))
                                   .as_strided(host.sizes(), host.strides(), host.storage_offset());
  buffer.index_put_({positions.reshape(-1)}, values.to(host.dtype()).expand(host.sizes()).reshape(-1));
}

}  // namespace

at::Tensor download(const at::Tensor& t) {
  const auto [first, last] = covering_bytes(t);
  auto host = host_twin(t, first, last - first);
  copy_to_host(t, first, last, storage_base(host));
  return host;
}

void upload(const at::Tensor& dst, const at::Tensor& values) {
  const auto [first, last] = covering_bytes(dst);
  if (last <= first) return;
  // Dense destinations are written whole; others are read first so bytes between elements survive.
  // With dst's lazy bits, so that the stored bytes are dst's own (a written argument of the CPU fallback carries them).
  auto host = with_math_bits_of(
      dst.is_non_overlapping_and_dense() ? host_twin(dst, first, last - first) : download(dst), dst);
  if (at::has_internal_overlap(host) == at::MemOverlap::Yes) {
    write_repeating_elements(host, values);
  } else {
    host.copy_(values);
  }
  const auto index = dst.device().index();
  call_core([&] {
    hal::copy_host_to_device(index, storage_base(dst) + first, storage_base(host), last - first,
                             hal::current_stream(index), /*src_is_pinned=*/false, /*non_blocking=*/false);
  });
}

HostCopies::Range& HostCopies::range_of(const at::Tensor& t) {
  for (auto& r : ranges_) {
    if (r.storage == t.storage().unsafeGetStorageImpl()) return r;
  }
  ranges_.push_back(Range{t.storage().unsafeGetStorageImpl()});
  return ranges_.back();
}

void HostCopies::note(const at::Tensor& t) {
  auto [first, last] = covering_bytes(t);
  if (last <= first) return;
  // Views of one storage may differ in dtype: a buffer starting 16-byte aligned holds each at a whole element.
  first -= first % 16;
  Range& r = range_of(t);
  TORCH_INTERNAL_ASSERT(!r.buffer.defined(), "HostCopies: a tensor noted after the copies were taken");
  if (r.last <= r.first) {
    r.first = first;
    r.last = last;
  } else {
    r.first = std::min(r.first, first);
    r.last = std::max(r.last, last);
  }
}

at::Tensor HostCopies::copy_of(const at::Tensor& t) {
  const auto [first, last] = covering_bytes(t);
  if (last <= first) return with_math_bits_of(host_twin(t, 0, 0), t);
  Range& r = range_of(t);
  TORCH_INTERNAL_ASSERT(r.first <= first && last <= r.last, "HostCopies: a tensor was not noted");
  if (!r.buffer.defined()) {
    r.buffer = at::empty({r.last - r.first}, at::TensorOptions().dtype(at::kByte).device(at::kCPU));
    copy_to_host(t, r.first, r.last, r.buffer.data_ptr());
  }
  const int64_t offset_elems = t.storage_offset() - r.first / static_cast<int64_t>(t.element_size());
  return with_math_bits_of(
      at::empty({0}, t.options().device(at::kCPU)).set_(r.buffer.storage(), offset_elems, t.sizes(), t.strides()), t);
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
