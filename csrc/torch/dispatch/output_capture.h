// Capturing the outputs of ATen CPU kernels directly in hal memory.
//
// The host reference device (and any device whose memory the CPU can address) runs ATen's CPU kernels in
// place on its own memory. Inputs are easy: a CPU tensor that aliases the hal bytes. Outputs are the
// problem: a CPU kernel allocates them with the CPU allocator. Rather than copying each result into hal
// memory afterwards, the CPU allocator is wrapped once, at import, by a router: while an
// OutputCaptureScope is active on a thread, CPU allocations made by that thread come from the hal
// device's caching allocator instead. The result is then re-labelled as a hal tensor with no copy.
// Outside a scope the router forwards to the original CPU allocator, so CPU tensors are untouched.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/SmallVector.h>

#include <ATen/core/Tensor.h>

namespace torch_hal {

// Wraps the CPU allocator in the router described above: once, at `import torch_hal` (after register_hooks).
void install_output_capture_allocator();

class OutputCaptureScope {
 public:
  explicit OutputCaptureScope(c10::DeviceIndex device);
  ~OutputCaptureScope();
  OutputCaptureScope(const OutputCaptureScope&) = delete;
  OutputCaptureScope& operator=(const OutputCaptureScope&) = delete;

 private:
  c10::DeviceIndex previous_;
};

// True when the storage's memory was allocated by a capture scope (it is hal memory labelled CPU).
bool holds_captured_memory(const c10::StorageImpl& storage);

// Moves captured memory out of a CPU storage (leaving it empty) and labels it as memory of hal:device.
c10::DataPtr take_captured_memory(c10::StorageImpl& storage, c10::DeviceIndex device);

// Which CPU storage stands for which hal storage during one kernel call: the aliases made for its
// arguments and the captured outputs already adopted. Ops have a handful of tensors: a flat list.
class StorageLinks {
 public:
  void add(c10::StorageImpl* cpu, c10::Storage hal) { links_.emplace_back(cpu, std::move(hal)); }
  const c10::Storage* find(const c10::StorageImpl* cpu) const {
    for (const auto& [k, v] : links_) {
      if (k == cpu) return &v;
    }
    return nullptr;
  }

 private:
  c10::SmallVector<std::pair<c10::StorageImpl*, c10::Storage>, 4> links_;
};

// A CPU kernel's result, run in place on host-accessible memory of hal:device, as a hal tensor: memory the
// kernel allocated inside an OutputCaptureScope is adopted (no copy), a view of an argument becomes the same
// view of that argument's hal storage, and anything else (a constant the kernel kept) is copied.
// The result is taken by value: held only there, it becomes the hal tensor itself (no new tensor).
at::Tensor adopt_cpu_result(at::Tensor result, c10::DeviceIndex device, StorageLinks& links);

}  // namespace torch_hal
