#include "dispatch/output_capture.h"

#include <c10/core/CPUAllocator.h>

#include <cstring>

#include "dispatch/tensor_bridge.h"
#include "hal/caching_allocator.h"
#include "runtime/allocator.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

thread_local c10::DeviceIndex tls_capture_device = -1;

// Captured memory keeps its hal block in a header just before the data, so that its DataPtr can have
// context == data. CPU kernels that take scratch memory through Allocator::raw_allocate (oneDNN's
// convolutions and bfloat16 matmuls) require that, and later hand back the data pointer alone.
constexpr size_t kHeaderBytes = 64;  // keeps the CPU allocator's 64-byte alignment of the data

hal::Block* block_of_captured(void* data) {
  return *reinterpret_cast<hal::Block**>(static_cast<char*>(data) - kHeaderBytes);
}
void free_captured(void* data) { free_hal_block(block_of_captured(data)); }

c10::DeleterFnPtr g_cpu_raw_deleter = nullptr;

// Allocator::raw_deallocate's deleter, for raw allocations made inside and outside capture scopes alike:
// the core says whether the pointer is hal memory (a search, but raw frees are rare).
void free_raw(void* data) {
  if (data != nullptr && hal::allocated_block_containing(data) != nullptr) {
    free_captured(data);
  } else {
    g_cpu_raw_deleter(data);
  }
}

class RoutingCpuAllocator final : public c10::Allocator {
 public:
  explicit RoutingCpuAllocator(c10::Allocator* cpu) : cpu_(cpu) { g_cpu_raw_deleter = cpu->raw_deleter(); }

  c10::DataPtr allocate(size_t nbytes) override {
    const auto device = tls_capture_device;
    if (device < 0 || nbytes == 0) return cpu_->allocate(nbytes);
    const auto allocation =
        call_core([&] { return hal::allocate(device, nbytes + kHeaderBytes, hal::current_stream(device)); });
    *static_cast<hal::Block**>(allocation.ptr) = allocation.block;
    void* data = static_cast<char*>(allocation.ptr) + kHeaderBytes;
    return {data, data, &free_captured, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return g_cpu_raw_deleter ? &free_raw : nullptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }

 private:
  c10::Allocator* cpu_;
};

}  // namespace

OutputCaptureScope::OutputCaptureScope(c10::DeviceIndex device) : previous_(tls_capture_device) {
  tls_capture_device = device;
}
OutputCaptureScope::~OutputCaptureScope() { tls_capture_device = previous_; }

bool holds_captured_memory(const c10::StorageImpl& storage) {
  return storage.data_ptr().get_deleter() == &free_captured && storage.device_type() == c10::DeviceType::CPU;
}

c10::DataPtr take_captured_memory(c10::StorageImpl& storage, c10::DeviceIndex device) {
  c10::DataPtr captured = storage.set_data_ptr(c10::DataPtr(nullptr, c10::Device(c10::DeviceType::CPU)));
  storage.set_nbytes(0);
  void* data = captured.get();
  hal::Block* block = block_of_captured(data);
  (void)captured.release_context();  // the block now belongs to the hal DataPtr below
  return {data, block, &free_hal_block, c10::Device(kHal, device)};
}

namespace {

// Whether `result` is a tensor the kernel just made and nobody else holds: no other reference (no Python object,
// no view keeps it), no autograd metadata (the kernel ran below autograd).
bool held_only_here(const at::Tensor& result) {
  return result.use_count() == 1 && result.unsafeGetTensorImpl()->autograd_meta() == nullptr;
}

// `result` itself made the hal tensor over `hal`: its storage swapped and its dispatch keys moved to the hal
// backend's (what a new hal tensor's constructor gives, inference mode included). A new tensor instead would cost
// an allocation, a sizes-and-strides copy and the CPU tensor's destruction, on every op of the host path.
at::Tensor relabel_as_hal(at::Tensor result, c10::Storage hal, c10::DeviceIndex device) {
  auto* impl = result.unsafeGetTensorImpl();
  impl->set_storage_keep_dtype(std::move(hal));
  impl->_change_backend_component_keys(c10::Device(kHal, device));
  return result;
}

}  // namespace

at::Tensor adopt_cpu_result(at::Tensor result, c10::DeviceIndex device, StorageLinks& links) {
  if (!result.defined() || !result.device().is_cpu()) return result;
  auto* storage = result.storage().unsafeGetStorageImpl();
  if (const auto* hal = links.find(storage)) return hal_tensor_over(*hal, result);
  if (holds_captured_memory(*storage)) {
    const size_t nbytes = storage->nbytes();
    c10::Storage hal(c10::Storage::use_byte_size_t(), nbytes, take_captured_memory(*storage, device),
                     device_allocator(), /*resizable=*/true);
    links.add(storage, hal);  // another result may view the same memory (its CPU storage stays alive)
    if (held_only_here(result)) return relabel_as_hal(std::move(result), std::move(hal), device);
    return hal_tensor_over(std::move(hal), result);
  }
  return new_hal_tensor_from(result, device);
}

void install_output_capture_allocator() {
  static RoutingCpuAllocator router(c10::GetCPUAllocator());
  // Priority above the default CPU allocator's (0), so later default registrations do not undo it.
  c10::SetCPUAllocator(&router, /*priority=*/1);
}

}  // namespace torch_hal
