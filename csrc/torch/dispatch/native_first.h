// Registering an op whose adapter may run it natively: NativeFirst<Op, fn> is the op's hal kernel.
//
// It checks the arguments' devices (as PyTorch checks CUDA ops), and when the device's adapter has
// native kernels it calls `fn`, which launches them (native_launch.h) and says whether it could. When it
// could not (no kernel for this op, dtype or layout), the op takes the path it would take without a
// native registration: ATen's CPU kernel in place for host-accessible memory, else the counted CPU
// fallback. So an op registered here is never worse off on any device.
//
// `fn` has the op's own parameters and returns
//   - std::optional<R> for ops returning R by value (nullopt: not handled);
//   - bool for ops returning Tensor& (in-place and out= ops; the kernel returns the first Tensor&
//     argument, which is `self` or `out`), and for ops returning nothing (true: done).
//
//   HAL_NATIVE(m, add_Tensor, "add.Tensor", launches(HAL_OP_ADD), add_tensor);
//
// launches(...) names the adapter ops `fn` launches itself (none: launches()), for the kernel table
// (kernel_table.h), from which `python -m torch_hal coverage` asks each adapter whether it has them.
#pragma once

#include <ATen/core/IListRef.h>

#include <optional>
#include <tuple>
#include <type_traits>

#include "dispatch/host_kernel.h"
#include "dispatch/kernel_table.h"
#include "dispatch/native_launch.h"

namespace torch_hal::native {
namespace detail {

inline void visit(DeviceScan& scan, const at::Tensor& t, const char* name) { scan.visit_tensor(t, name, false); }
inline void visit(DeviceScan& scan, const std::optional<at::Tensor>& t, const char* name) {
  if (t.has_value()) scan.visit_tensor(*t, name, false);
}
inline void visit(DeviceScan& scan, at::TensorList list, const char* name) {
  for (const at::Tensor& t : list) scan.visit_tensor(t, name, false);
}
inline void visit(DeviceScan& scan, const at::ITensorListRef& list, const char* name) {
  for (const at::Tensor& t : list) scan.visit_tensor(t, name, false);
}
inline void visit(DeviceScan& scan, const c10::List<std::optional<at::Tensor>>& list, const char* name) {
  for (const std::optional<at::Tensor>& t : list) {
    if (t.has_value()) scan.visit_tensor(*t, name, true);  // index tensors may be on the CPU
  }
}
template <class T>
inline void visit(DeviceScan&, const T&, const char*) {}

// True when every tensor-like argument is a plain Tensor, which HostKernel's unboxed path handles.
template <class... Args>
constexpr bool only_plain_tensors =
    ((std::is_same_v<std::decay_t<Args>, at::Tensor> || !(std::is_same_v<std::decay_t<Args>, std::optional<at::Tensor>> ||
                                                          std::is_same_v<std::decay_t<Args>, at::TensorList> ||
                                                          std::is_same_v<std::decay_t<Args>, at::ITensorListRef> ||
                                                          std::is_same_v<std::decay_t<Args>, c10::List<std::optional<at::Tensor>>>)) &&
     ...);

// HostKernel's unboxed path returns one Tensor (by value or the Tensor& written) and passes other
// arguments through unchanged; ops returning tuples, and random ops (whose hal generator the boxed
// fallback swaps for its CPU generator), take the boxed fallback.
template <class Ret, class... Args>
constexpr bool host_kernel_can_run =
    (std::is_same_v<Ret, at::Tensor> || std::is_same_v<Ret, at::Tensor&>) &&
    !(std::is_same_v<std::decay_t<Args>, std::optional<at::Generator>> || ...) && only_plain_tensors<Args...>;

}  // namespace detail

template <class Op, auto Native, class Schema = typename Op::schema>
struct NativeFirst;

template <class Op, auto Native, class Ret, class... Args>
struct NativeFirst<Op, Native, Ret(Args...)> {
  static Ret call(Args... args) {
    DeviceScan scan;
    (detail::visit(scan, args, Op::name), ...);
    scan.finish(Op::name);
    const auto device = static_cast<c10::DeviceIndex>(scan.device >= 0 ? scan.device : current_device());
    if (has_native_kernels(device)) {
      if constexpr (std::is_same_v<Ret, at::Tensor&>) {
        if (Native(args...)) {
          constexpr size_t self = host_path::first_true<std::is_same<Args, at::Tensor&>...>();
          return std::get<self>(std::forward_as_tuple(args...));
        }
      } else if constexpr (std::is_void_v<Ret>) {
        if (Native(args...)) return;
      } else {
        if (auto result = Native(args...)) return std::move(*result);
      }
    }
    // HostKernel's unboxed path takes plain Tensor arguments and returns one Tensor, or self of an in-place
    // op. Tuples (max.dim, var_mean) and out= ops take the boxed path, which also resizes `out` (the
    // unboxed path would resize only its CPU alias).
    constexpr bool in_place = std::is_same_v<Ret, at::Tensor&> &&
                              host_path::first_true<std::is_same<Args, at::Tensor&>...>() == 0;
    if constexpr (detail::host_kernel_can_run<Ret, Args...> && (std::is_same_v<Ret, at::Tensor> || in_place)) {
      return HostKernel<Op>::call_on(device, args...);
    } else {
      return at::native::call_fallback_fn_symint<&host_path::run_on_cpu_kernel_boxed, Op>::call(args...);
    }
  }
};

// (fn may be a template-id with commas, hence the variadic argument.)
#define HAL_NATIVE(m, op, overload_name, launched_ops, ...)                                  \
  ::torch_hal::native::impl_recorded(                                                        \
      m, ::torch_hal::native::Route::AdapterFirst, overload_name,                            \
      TORCH_FN((::torch_hal::native::NativeFirst<at::_ops::op, &__VA_ARGS__>::call)),        \
      ::torch_hal::native::launched_ops)

// The three forms op, op_ and op.out of one op, whose kernels are fn, fn_ and fn_out, each followed by the
// template arguments if any are given (`<HAL_OP_FLOOR, Unary, no_bool>`; a variadic argument for their commas).
#define HAL_NATIVE_FORMS(m, op, name, OP, fn, ...)                            \
  HAL_NATIVE(m, op, name, launches(OP), fn __VA_ARGS__);                      \
  HAL_NATIVE(m, op##_, name "_", launches(OP), fn##_ __VA_ARGS__);            \
  HAL_NATIVE(m, op##_out, name ".out", launches(OP), fn##_out __VA_ARGS__)

}  // namespace torch_hal::native
