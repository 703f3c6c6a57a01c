// The legacy autograd profiler's device timing for hal (torch.autograd.profiler.profile(use_device="hal")):
// PyTorch brackets each op with record() on the current device's current stream and reports elapsed()
// between the two as the op's device time, as it does with CUDA events for use_device="cuda". Without
// these stubs PyTorch's defaults assert and print negative times.
#include <torch/csrc/profiler/stubs/base.h>
#include <c10/util/ApproximateClock.h>

#include <memory>

#include "hal/event.h"
#include "hal/streams.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

using torch::profiler::impl::ProfilerVoidEventStub;

struct HalProfilerStubs final : public torch::profiler::impl::ProfilerStubs {
  void record(c10::DeviceIndex* device, ProfilerVoidEventStub* event, int64_t* cpu_ns) const override {
    const c10::DeviceIndex index = current_device();
    if (device) *device = index;
    auto recorded = std::make_shared<hal::Event>(/*enable_timing=*/true);
    // The CPU time is taken next to the record, so PyTorch can place the device interval on its clock.
    if (cpu_ns) *cpu_ns = c10::getTime();
    call_core([&] { recorded->record(index, hal::current_stream(index)); });
    *event = std::static_pointer_cast<void>(recorded);
  }

  // Microseconds between two recorded events, waiting for the second.
  float elapsed(const ProfilerVoidEventStub* start, const ProfilerVoidEventStub* end) const override {
    const auto* begin = static_cast<const hal::Event*>(start->get());
    const auto* finish = static_cast<const hal::Event*>(end->get());
    return call_core([&] {
      finish->synchronize();
      return begin->elapsed_ms(*finish) * 1000.0f;
    });
  }

  // hal has no vendor-neutral range annotation (NVTX-like); ranges are recorded by the CPU side.
  void mark(const char*) const override {}
  void rangePush(const char*) const override {}
  void rangePop() const override {}
  bool enabled() const override { return true; }

  void onEachDevice(std::function<void(int)> op) const override {
    const c10::DeviceIndex previous = current_device();
    for (int index = 0; index < device_count(); ++index) {
      set_current_device(static_cast<c10::DeviceIndex>(index));
      op(index);
    }
    set_current_device(previous);
  }

  void synchronize() const override {
    call_core([] { hal::synchronize_device(current_device()); });
  }
};

// Registered when the module loads, as PyTorch's own CUDA stubs are.
struct RegisterStubs {
  RegisterStubs() {
    static HalProfilerStubs stubs;
    torch::profiler::impl::registerPrivateUse1Methods(&stubs);
  }
} g_register_stubs;

}  // namespace
}  // namespace torch_hal
