// Every aten op without a native hal kernel runs here (DESIGN.md, "Operators"):
//  - on host-accessible memory: ATen's CPU kernel in place on the hal memory, in stream order, outputs
//    captured directly in hal memory (not counted: this is the host device's native way to compute);
//  - otherwise the counted CPU fallback: inputs downloaded, the CPU kernel run, results uploaded. Each op is
//    counted (fallback_stats), warned about once, and refused when strict mode is on (TORCH_HAL_STRICT=1).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <cstdint>
#include <map>
#include <string>

namespace torch_hal {

// The boxed kernel registered for every op of the hal dispatch key that has no kernel of its own.
void run_on_cpu_kernel(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack);

// Registers run_on_cpu_kernel for the functional forms of structured ops (see cpu_fallback.cpp). Runs once
// at import, after every static registration (this file's and PyTorch's) is in place.
void route_structured_functional_ops_to_cpu_kernels();

std::map<std::string, int64_t> fallback_stats();
void reset_fallback_stats();
bool strict_mode();
void set_strict_mode(bool strict);
// Whether TORCH_HAL_TRACE_OPS asks for each op's path on stderr (kernels that choose a path say so too).
// TORCH_HAL_STRICT and TORCH_HAL_TRACE_OPS are read at import (an import check of runtime/hal_context.h).
bool trace_ops();

}  // namespace torch_hal
