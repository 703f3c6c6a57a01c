// c10's view of hal devices: current device and stream, events, synchronization. PyTorch's generic
// machinery (torch.Stream, torch.Event, torch.accelerator, DeviceGuard, autograd's stream handling)
// reaches the HAL core through this one class.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "hal/event.h"
#include "hal/streams.h"
#include "runtime/allocator.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

c10::Stream to_c10(c10::DeviceIndex device, hal::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(kHal, device), id);
}

struct HalGuardImpl final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kHal; }

  c10::Device exchangeDevice(c10::Device d) const override {
    TORCH_INTERNAL_ASSERT(d.type() == kHal);
    const auto old = current_device();
    if (d.index() != old) set_current_device(d.index());
    return c10::Device(kHal, old);
  }
  c10::Device getDevice() const override { return c10::Device(kHal, current_device()); }
  void setDevice(c10::Device d) const override {
    TORCH_INTERNAL_ASSERT(d.type() == kHal);
    set_current_device(d.index());
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    try {
      set_current_device(d.index());
    } catch (...) {
      // noexcept by contract: a guard restoring a device that vanished keeps the current one.
    }
  }

  // A device without an index (torch.Stream(device="hal")) means the current device, as for cuda.
  static c10::DeviceIndex index_of(c10::Device d) { return d.has_index() ? d.index() : current_device(); }

  c10::Stream getStream(c10::Device d) const override {
    const auto i = index_of(d);
    return to_c10(i, call_core([&] { return hal::current_stream(i); }));
  }
  c10::Stream getDefaultStream(c10::Device d) const override { return to_c10(index_of(d), hal::kDefaultStreamId); }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool is_high_priority = false) const override {
    const auto i = index_of(d);
    return to_c10(i, call_core([&] { return hal::stream_from_pool(i, is_high_priority ? -1 : 0); }));
  }
  c10::Stream getNewStream(c10::Device d, int priority = 0) const override {
    const auto i = index_of(d);
    return to_c10(i, call_core([&] { return hal::create_stream(i, priority); }));
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    const auto device = s.device_index();
    return call_core([&] {
      const auto old = hal::current_stream(device);
      // The autograd engine exchanges each node's stream in and back out: mostly the current one already.
      if (s.id() != old) hal::set_current_stream(device, s.id());
      return to_c10(device, old);
    });
  }

  c10::DeviceIndex deviceCount() const noexcept override {
    try {
      return static_cast<c10::DeviceIndex>(device_count());
    } catch (...) {
      return 0;
    }
  }

  // Events: the void* that PyTorch stores is an hal::Event*, created on first record.
  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag flag) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(),
                "Event device index ", device_index, " does not match recording stream's device index ",
                stream.device_index(), ".");
    if (*event == nullptr) *event = new hal::Event(flag == c10::EventFlag::BACKEND_DEFAULT);
    auto* e = static_cast<hal::Event*>(*event);
    call_core([&] { e->record(stream.device_index(), stream.id()); });
  }
  void block(void* event, const c10::Stream& stream) const override {
    if (event == nullptr) return;
    call_core([&] { static_cast<hal::Event*>(event)->block(stream.device_index(), stream.id()); });
  }
  bool queryEvent(void* event) const override {
    if (event == nullptr) return true;
    return call_core([&] { return static_cast<hal::Event*>(event)->query(); });
  }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    delete static_cast<hal::Event*>(event);
  }
  void synchronizeEvent(void* event) const override {
    if (event == nullptr) return;
    call_core([&] { static_cast<hal::Event*>(event)->synchronize(); });
  }
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start && end, "Both events must be recorded before calculating elapsed time.");
    return call_core([&] {
      return static_cast<double>(static_cast<hal::Event*>(start)->elapsed_ms(*static_cast<hal::Event*>(end)));
    });
  }

  bool queryStream(const c10::Stream& s) const override {
    return call_core([&] { return hal::query_stream(s.device_index(), s.id()); });
  }
  void synchronizeStream(const c10::Stream& s) const override {
    call_core([&] { hal::synchronize_stream(s.device_index(), s.id()); });
  }
  void synchronizeDevice(const c10::DeviceIndex device_index) const override {
    call_core([&] { hal::synchronize_device(device_index); });
  }
  // torch.accelerator.get_device_capability(). Storage, copies and the CPU fallback serve every dtype on
  // every hal device, so all are supported, except the quantized ones: quantized tensors need a quantizer
  // and kernels per backend, which hal does not have.
  c10::DeviceCapability getDeviceCapability(c10::Device d) const override {
    device(index_of(d));  // IndexError for a device that does not exist
    c10::DeviceCapability capability;
    for (const auto index : {c10::kIndex_QInt8, c10::kIndex_QUInt8, c10::kIndex_QInt32, c10::kIndex_QUInt4x2,
                             c10::kIndex_QUInt2x4}) {
      capability.capability_data.capability_bits &= ~(uint64_t{1} << index);
    }
    return capability;
  }
  void recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const override {
    record_data_ptr_on_stream(data_ptr, stream.id());
  }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, HalGuardImpl);

}  // namespace
}  // namespace torch_hal
