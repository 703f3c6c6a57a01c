// Unboxed kernels for the hottest ops on host-accessible memory.
//
// run_on_cpu_kernel (cpu_fallback.cpp) serves every op, but generically: the dispatcher boxes the
// arguments into a stack, which is walked against the schema. For the ops a training step calls most, that
// bookkeeping costs as much as the op itself on small tensors, so these ops get an unboxed kernel made from
// one template: alias the hal arguments, call the CPU kernel with the same arguments, adopt the result.
// Devices whose memory the CPU cannot address take the boxed path unchanged.
#include <ATen/Operators.h>
#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include <tuple>
#include <type_traits>

#include "cpu_fallback.h"
#include "device_scan.h"
#include "output_capture.h"
#include "tensor_bridge.h"

namespace torch_hal {
namespace {

template <class T>
constexpr bool is_tensor_arg = std::is_same_v<std::decay_t<T>, at::Tensor>;

// Per argument: what the CPU kernel receives in its place.
template <class Arg>
auto to_cpu_arg(Arg&& arg, StorageLinks& links) {
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
void run_on_cpu_kernel_boxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  run_on_cpu_kernel(op, c10::DispatchKeySet(), stack);
}

template <class Op, class Schema = typename Op::schema>
struct HostKernel;

template <class Op, class Ret, class... Args>
struct HostKernel<Op, Ret(Args...)> {
  static Ret call(Args... args) {
    DeviceScan scan;
    ((is_tensor_arg<Args> ? scan.visit_tensor(tensor_or_undefined(args), Op::name, false) : void()), ...);
    scan.finish(Op::name);
    const auto device = static_cast<c10::DeviceIndex>(scan.device >= 0 ? scan.device : current_device());
    if (!is_host_accessible(device)) {
      return at::native::call_fallback_fn<&run_on_cpu_kernel_boxed, Op>::call(args...);
    }
    wait_for_current_stream(device);
    StorageLinks links;
    auto cpu_args = std::make_tuple(to_cpu_arg(args, links)...);
    if constexpr (std::is_same_v<Ret, at::Tensor&>) {
      // In-place on `self` (the first argument), whose hal bytes the CPU kernel writes directly.
      std::apply([](auto&... a) { Op::redispatch(c10::DispatchKeySet(c10::DispatchKey::CPU), a...); }, cpu_args);
      return std::get<0>(std::forward_as_tuple(args...));
    } else {
      at::Tensor result;
      {
        OutputCaptureScope capture(device);
        result = std::apply(
            [](auto&... a) { return Op::redispatch(c10::DispatchKeySet(c10::DispatchKey::CPU), a...); }, cpu_args);
      }
      return adopt_cpu_result(result, device, links);
    }
  }

 private:
  template <class T>
  static const at::Tensor& tensor_or_undefined(const T& v) {
    if constexpr (is_tensor_arg<T>) {
      return v;
    } else {
      static const at::Tensor undefined;
      return undefined;
    }
  }
};

#define HAL_HOST_KERNEL(op, overload_name) \
  m.impl(overload_name, TORCH_FN(HostKernel<at::_ops::op>::call))

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_HOST_KERNEL(add_Tensor, "add.Tensor");
  HAL_HOST_KERNEL(add__Tensor, "add_.Tensor");
  HAL_HOST_KERNEL(sub_Tensor, "sub.Tensor");
  HAL_HOST_KERNEL(sub__Tensor, "sub_.Tensor");
  HAL_HOST_KERNEL(mul_Tensor, "mul.Tensor");
  HAL_HOST_KERNEL(mul__Tensor, "mul_.Tensor");
  HAL_HOST_KERNEL(div_Tensor, "div.Tensor");
  HAL_HOST_KERNEL(div__Tensor, "div_.Tensor");
  HAL_HOST_KERNEL(neg, "neg");
  HAL_HOST_KERNEL(relu, "relu");
  HAL_HOST_KERNEL(relu_, "relu_");
  HAL_HOST_KERNEL(threshold_backward, "threshold_backward");
  HAL_HOST_KERNEL(mm, "mm");
  HAL_HOST_KERNEL(addmm, "addmm");
  HAL_HOST_KERNEL(sum, "sum");
  HAL_HOST_KERNEL(sum_dim_IntList, "sum.dim_IntList");
  HAL_HOST_KERNEL(mean_dim, "mean.dim");
  HAL_HOST_KERNEL(_log_softmax, "_log_softmax");
  HAL_HOST_KERNEL(_log_softmax_backward_data, "_log_softmax_backward_data");
  HAL_HOST_KERNEL(gelu, "gelu");
  HAL_HOST_KERNEL(gelu_backward, "gelu_backward");
  HAL_HOST_KERNEL(tanh, "tanh");
  HAL_HOST_KERNEL(sigmoid, "sigmoid");
  HAL_HOST_KERNEL(exp, "exp");
  HAL_HOST_KERNEL(sqrt, "sqrt");
  HAL_HOST_KERNEL(rsqrt, "rsqrt");
  HAL_HOST_KERNEL(pow_Tensor_Scalar, "pow.Tensor_Scalar");
  HAL_HOST_KERNEL(where_self, "where.self");
}

}  // namespace
}  // namespace torch_hal
