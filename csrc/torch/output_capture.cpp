#include "output_capture.h"

#include <c10/core/CPUAllocator.h>

#include <cstring>

#include "allocator.h"
#include "hal/caching_allocator.h"
#include "hal_context.h"
#include "registration.h"
#include "tensor_bridge.h"

namespace torch_hal {
namespace {

thread_local c10::DeviceIndex tls_capture_device = -1;

class RoutingCpuAllocator final : public c10::Allocator {
 public:
  explicit RoutingCpuAllocator(c10::Allocator* cpu) : cpu_(cpu) {}

  c10::DataPtr allocate(size_t nbytes) override {
    const auto device = tls_capture_device;
    if (device < 0 || nbytes == 0) return cpu_->allocate(nbytes);
    const auto allocation =
        call_core([&] { return hal::allocate(device, nbytes, hal::current_stream(device)); });
    return {allocation.ptr, allocation.block, &free_hal_block, c10::Device(c10::DeviceType::CPU)};
  }
  // raw_allocate() needs context == data, which only the CPU allocator's own pointers satisfy.
  c10::DeleterFnPtr raw_deleter() const override { return cpu_->raw_deleter(); }
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
  return storage.data_ptr().get_deleter() == &free_hal_block && storage.device_type() == c10::DeviceType::CPU;
}

c10::DataPtr take_captured_memory(c10::StorageImpl& storage, c10::DeviceIndex device) {
  c10::DataPtr memory = storage.set_data_ptr(c10::DataPtr(nullptr, c10::Device(c10::DeviceType::CPU)));
  storage.set_nbytes(0);
  memory.unsafe_set_device(c10::Device(kHal, device));
  return memory;
}

at::Tensor adopt_cpu_result(const at::Tensor& result, c10::DeviceIndex device, StorageLinks& links) {
  if (!result.defined() || !result.device().is_cpu()) return result;
  auto* storage = result.storage().unsafeGetStorageImpl();
  if (const auto* hal = links.find(storage)) return hal_tensor_over(*hal, result);
  if (holds_captured_memory(*storage)) {
    const size_t nbytes = storage->nbytes();
    c10::Storage hal(c10::Storage::use_byte_size_t(), nbytes, take_captured_memory(*storage, device),
                     device_allocator(), /*resizable=*/true);
    links.add(storage, hal);
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
