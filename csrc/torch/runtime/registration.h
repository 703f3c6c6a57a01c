// The runtime's one-time registration at `import torch_hal` (python/python_module.cpp's _init calls, in this
// order: runtime/hal_context.h's initialize, register_hooks, dispatch/output_capture.h's
// install_output_capture_allocator, dispatch/cpu_fallback.h's route_structured_functional_ops_to_cpu_kernels).
#pragma once

namespace torch_hal {

// PyTorch's PrivateUse1 hooks (hooks.cpp).
void register_hooks();

}  // namespace torch_hal
