#include "allocator.h"

#include <cstring>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal_context.h"
#include "python_backend.h"

namespace torch_hal {
namespace {

struct HalDeviceAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) override { return allocate_on(current_device(), nbytes); }

  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }  // context != data: no raw API

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    const auto index = current_device();
    call_core([&] {
      hal::copy_device_to_device(index, dest, index, src, count, hal::current_stream(index), false);
    });
  }
};

HalDeviceAllocator g_device_allocator;

void free_pinned_block(void* ctx) {
  // ctx packs the device the memory came from; data is the pinned pointer.
  auto* owner = static_cast<std::pair<int, void*>*>(ctx);
  hal::free_pinned(owner->first, owner->second);
  delete owner;
}

struct HalPinnedAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return {nullptr, nullptr, &free_pinned_block, c10::Device(c10::DeviceType::CPU)};
    const int index = current_device();
    void* ptr = call_core([&] { return hal::allocate_pinned(index, nbytes); });
    return {ptr, new std::pair<int, void*>(index, ptr), &free_pinned_block, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
};

HalPinnedAllocator g_pinned_allocator;

}  // namespace

// The DataPtr's context is the core's Block; freeing returns it to the cache.
void free_hal_block(void* block) {
  GilReleasedAroundCoreLock no_gil;
  hal::free_block(static_cast<hal::Block*>(block));
}

c10::Allocator* device_allocator() { return &g_device_allocator; }
c10::Allocator* pinned_allocator() { return &g_pinned_allocator; }

c10::DataPtr allocate_on(c10::DeviceIndex index, size_t nbytes) {
  const c10::Device where(kHal, index);
  if (nbytes == 0) return {nullptr, nullptr, &free_hal_block, where};
  const auto allocation = call_core([&] {
    GilReleasedAroundCoreLock no_gil;
    return hal::allocate(index, nbytes, hal::current_stream(index));
  });
  return {allocation.ptr, allocation.block, &free_hal_block, where};
}

void record_data_ptr_on_stream(const c10::DataPtr& data_ptr, hal::StreamId stream) {
  // Only memory of the caching allocator has a block to record (not an empty or foreign DataPtr).
  if (data_ptr.get_deleter() != &free_hal_block || data_ptr.get_context() == nullptr) return;
  call_core([&] {
    GilReleasedAroundCoreLock no_gil;
    hal::record_stream(static_cast<hal::Block*>(data_ptr.get_context()), stream);
  });
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_device_allocator);

}  // namespace torch_hal
