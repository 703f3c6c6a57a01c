// The table of hal kernels: every aten op that torch_hal registers for the hal dispatch key, with the route
// its kernel takes and the adapter ops (adapter.h's ids) it launches itself.
//
// Registrations fill it as they run (HAL_NATIVE in native_first.h, impl_recorded below, the CPU-kernel
// routing of cpu_fallback.cpp), so it cannot drift from what is registered. `python -m torch_hal coverage`
// reads it, with the dispatcher and each adapter's op_supported, to show which ops a device runs natively
// before a model runs (op_coverage.cpp binds it).
#pragma once

#include <torch/library.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "torch_hal/adapter.h"

namespace torch_hal::native {

enum class Route : uint8_t {
  AdapterFirst,  // NativeFirst: the adapter's kernel for its ops, else the CPU kernel in place or the fallback
  Foreach,       // one HAL_OP_FOREACH launch over every tensor, else one aten op per tensor
  Composite,     // a composition of other aten ops, each taking its own route
  Runtime,       // the device's own work: allocation, views, copies, metadata (never a CPU kernel)
  CpuKernel,     // ATen's CPU kernel: in place on host-accessible memory, else the counted fallback
};

const char* route_name(Route route);

// The adapter ops a kernel launches itself (not those of the aten ops it calls): launches(HAL_OP_ADD).
struct LaunchedOps {
  static constexpr int kMax = 4;
  hal_op_t ids[kMax] = {};
  int count = 0;
};
template <class... Ops>
constexpr LaunchedOps launches(Ops... ops) {
  static_assert(sizeof...(Ops) <= LaunchedOps::kMax, "launches(): at most LaunchedOps::kMax adapter ops");
  LaunchedOps out;
  ((out.ids[out.count++] = static_cast<hal_op_t>(ops)), ...);
  return out;
}

struct KernelRecord {
  std::string name;  // "add.Tensor": aten's name and overload, as schemas spell them
  Route route;
  std::vector<hal_op_t> hal_ops;
};

void record_kernel(std::string name, Route route, const LaunchedOps& ops = {});
// Every recorded registration, in registration order.
std::vector<KernelRecord> recorded_kernels();

// m.impl(name, fn), recorded with its route: for hal kernels that are not HAL_NATIVE's.
template <class Func>
torch::Library& impl_recorded(torch::Library& m, Route route, const char* name, Func&& fn,
                              const LaunchedOps& ops = {}) {
  record_kernel(name, route, ops);
  return m.impl(name, std::forward<Func>(fn));
}

// "HAL_OP_ADD" for 10; "HAL_OP_<n>" for an id this build does not name.
std::string hal_op_name(hal_op_t op);

}  // namespace torch_hal::native
