// The host path of one op, unboxed: HostKernel<Op>::call runs ATen's CPU kernel in place on the memory
// of host-accessible devices, and sends every other device to the boxed CPU fallback.
//
// run_on_cpu_kernel (cpu_fallback.cpp) serves every op, but generically: the dispatcher boxes the
// arguments into a stack, which is walked against the schema. For the ops a training step calls most, that
// bookkeeping costs as much as the op itself on small tensors, so these ops get an unboxed kernel made from
// one template: alias the hal arguments, call the CPU kernel with the same arguments, adopt the result.
// Native kernels (dispatch/native_first.h) fall back to the same template when the adapter has none.
#pragma once

#include <ATen/Operators.h>
#include <ATen/native/CPUFallback.h>

#include <tuple>
#include <type_traits>

#include "dispatch/cpu_fallback.h"
#include "dispatch/device_scan.h"
#include "dispatch/output_capture.h"
#include "dispatch/tensor_bridge.h"
#include "profiler/device_spans.h"

namespace torch_hal {
namespace host_path {

template <class T>
constexpr bool is_tensor_arg = std::is_same_v<std::decay_t<T>, at::Tensor>;

// Per argument: what the CPU kernel receives in its place.
template <class Arg>
inline auto to_cpu_arg(Arg&& arg, StorageLinks& links) {
  if constexpr (is_tensor_arg<Arg>) {
    if (!is_hal(arg)) return at::Tensor(arg);
    at::Tensor alias = cpu_alias(arg);
    links.add(alias.storage().unsafeGetStorageImpl(), arg.storage());
    return alias;
  } else {
    return std::decay_t<Arg>(arg);
  }
}

// call_fallback_fn takes boxed kernels without the key set (which run_on_cpu_kernel ignores).
inline void run_on_cpu_kernel_boxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  run_on_cpu_kernel(op, c10::DispatchKeySet(), stack);
}

// Index of the first true flag: finds the argument an in-place or out= op returns (its first Tensor&).
template <class... Flags>
constexpr size_t first_true() {
  constexpr bool flags[] = {Flags::value..., false};
  for (size_t i = 0; i < sizeof...(Flags); ++i) {
    if (flags[i]) return i;
  }
  return sizeof...(Flags);
}

}  // namespace host_path

template <class Op, class Schema = typename Op::schema>
struct HostKernel;

template <class Op, class Ret, class... Args>
struct HostKernel<Op, Ret(Args...)> {
  static Ret call(Args... args) {
    DeviceScan scan;
    ((host_path::is_tensor_arg<Args> ? scan.visit_tensor(tensor_or_undefined(args), Op::name, false) : void()), ...);
    scan.finish(Op::name);
    const auto device = static_cast<c10::DeviceIndex>(scan.device >= 0 ? scan.device : current_device());
    return call_on(device, args...);
  }

  // The same, once the caller has checked the arguments' devices and found `device`.
  static Ret call_on(c10::DeviceIndex device, Args... args) {
    if (!is_host_accessible(device)) {
      return at::native::call_fallback_fn_symint<&host_path::run_on_cpu_kernel_boxed, Op>::call(args...);
    }
    wait_for_current_stream(device);
    StorageLinks links;
    auto cpu_args = std::make_tuple(host_path::to_cpu_arg(args, links)...);
    // The kernel runs here, in stream order, between the span's two events: it is the device's work.
    hal::DeviceSpan span = profiler::kernel_span(device, [] { return profiler::short_op_name(Op::name, Op::overload_name); });
    if constexpr (std::is_same_v<Ret, at::Tensor&>) {
      // In-place on `self` or into `out` (the first Tensor& argument), whose hal bytes the CPU kernel
      // writes directly.
      std::apply([](auto&... a) { Op::redispatch(c10::DispatchKeySet(c10::DispatchKey::CPU), a...); }, cpu_args);
      span.end();
      constexpr size_t written = host_path::first_true<std::is_same<Args, at::Tensor&>...>();
      return std::get<written>(std::forward_as_tuple(args...));
    } else {
      at::Tensor result;
      {
        OutputCaptureScope capture(device);
        result = std::apply(
            [](auto&... a) { return Op::redispatch(c10::DispatchKeySet(c10::DispatchKey::CPU), a...); }, cpu_args);
      }
      span.end();
      return adopt_cpu_result(std::move(result), device, links);
    }
  }

 private:
  template <class T>
  static const at::Tensor& tensor_or_undefined(const T& v) {
    if constexpr (host_path::is_tensor_arg<T>) {
      return v;
    } else {
      static const at::Tensor undefined;
      return undefined;
    }
  }
};

}  // namespace torch_hal
