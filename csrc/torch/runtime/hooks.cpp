// PrivateUse1 hooks: what ATen asks of the backend outside the dispatcher (availability, generators,
// pinned memory, storage resizing).
#include <ATen/detail/PrivateUse1HooksInterface.h>

#include "hal/copy_engine.h"
#include "hal/streams.h"
#include "runtime/allocator.h"
#include "runtime/generator.h"
#include "runtime/hal_context.h"
#include "runtime/registration.h"

namespace torch_hal {
namespace {

struct HalHooks final : public at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return device_count() > 0; }
  bool hasPrimaryContext(c10::DeviceIndex index) const override { return index >= 0 && index < device_count(); }
  void init() const override {}

  const at::Generator& getDefaultGenerator(c10::DeviceIndex index) const override {
    return default_generator(index < 0 ? current_device() : index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex index = -1) const override {
    return make_generator(index < 0 ? current_device() : index);
  }

  at::Device getDeviceFromPtr(void*) const override { return c10::Device(kHal, current_device()); }
  bool isPinnedPtr(const void* data) const override { return hal::is_pinned(data); }
  at::Allocator* getPinnedMemoryAllocator() const override { return pinned_allocator(); }

  c10::DeviceIndex deviceCount() const override { return static_cast<c10::DeviceIndex>(device_count()); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  void setCurrentDevice(c10::DeviceIndex index) const override { set_current_device(index); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex index) const override {
    const auto old = current_device();
    set_current_device(index);
    return old;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex index) const override { return exchangeDevice(index); }

  // Grows (or shrinks) a hal storage in place, keeping its bytes: used by resize_ and storage.resize_().
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t new_bytes) const override {
    auto* impl = storage.unsafeGetStorageImpl();
    TORCH_CHECK(impl->resizable(), "Trying to resize storage that is not resizable");
    const auto index = impl->device().index();
    c10::DataPtr fresh = allocate_on(index, new_bytes);
    const size_t keep = std::min(new_bytes, impl->nbytes());
    if (keep > 0) {
      call_core([&] {
        hal::copy_device_to_device(index, fresh.get(), index, impl->data(), keep, hal::current_stream(index), false);
      });
    }
    impl->set_data_ptr_noswap(std::move(fresh));
    impl->set_nbytes(new_bytes);
  }
};

}  // namespace

void register_hooks() {
  static HalHooks hooks;
  at::RegisterPrivateUse1HooksInterface(&hooks);
}

}  // namespace torch_hal
