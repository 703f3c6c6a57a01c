// One-time registrations done at `import torch_hal`, in this order: the backend name, hooks, the CPU
// allocator that captures kernel outputs into hal memory.
#pragma once

namespace torch_hal {

void register_hooks();
void install_output_capture_allocator();

}  // namespace torch_hal
