#include "dispatch/cpu_fallback.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/SmallVector.h>
#include <torch/library.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "dispatch/device_scan.h"
#include "dispatch/kernel_table.h"
#include "dispatch/output_capture.h"
#include "dispatch/tensor_bridge.h"
#include "hal/environment.h"
#include "profiler/device_spans.h"
#include "runtime/generator.h"
#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

using Stack = std::vector<c10::IValue>;

// TORCH_HAL_STRICT, read at import by read_op_path_switches() (below).
std::atomic<bool> g_strict{false};

// TORCH_HAL_TRACE_OPS=1 prints every op that reaches this file, with the path it takes: the quickest
// way to see why a program is slow on a device or what an adapter would need to implement natively.
std::atomic<bool> g_trace_ops{false};

std::mutex g_stats_mutex;
std::map<std::string, int64_t> g_fallback_counts;

void count_fallback(const c10::OperatorHandle& op, int device) {
  const auto& name = op.schema().operator_name();
  const std::string key = name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
  TORCH_CHECK(!g_strict.load(), key, " has no native kernel on hal:", device, " (",
              torch_hal::device(static_cast<c10::DeviceIndex>(device)).adapter->name(),
              " adapter) and would run through the CPU fallback, which strict mode forbids "
              "(TORCH_HAL_STRICT=1). Unset TORCH_HAL_STRICT or call torch.hal.set_strict(False) to allow it.");
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    first = (g_fallback_counts[key]++ == 0);
  }
  if (first) {
    TORCH_WARN("torch_hal: ", key, " has no native kernel on hal:", device, " (",
               torch_hal::device(static_cast<c10::DeviceIndex>(device)).adapter->name(),
               " adapter); it runs on the CPU with copies to and from the device. "
               "torch.hal.fallback_stats() counts such calls.");
  }
}

DeviceScan scan_devices(const c10::FunctionSchema& schema, const Stack& stack, size_t first) {
  DeviceScan scan;
  const char* name = schema.name().c_str();
  for (size_t i = first; i < stack.size(); ++i) {
    const auto& v = stack[i];
    if (v.isTensor()) {
      scan.visit_tensor(v.toTensor(), name, false);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList()) scan.visit_tensor(t, name, false);
    } else if (v.isList()) {
      // List[Optional[Tensor]]: index tensors, which PyTorch accepts on the CPU.
      for (const c10::IValue& e : v.toListRef()) {
        if (e.isTensor()) scan.visit_tensor(e.toTensor(), name, true);
      }
    } else if (v.isDevice() && v.toDevice().type() == kHal && scan.device < 0) {
      scan.device = v.toDevice().index() < 0 ? current_device() : v.toDevice().index();
    }
  }
  scan.finish(name);
  return scan;
}

// The run of one op: converts arguments to CPU tensors, calls the CPU kernel, converts results back.
class CpuKernelCall {
 public:
  CpuKernelCall(const c10::OperatorHandle& op, Stack* stack, c10::DeviceIndex device)
      : op_(op), schema_(op.schema()), stack_(stack), device_(device), alias_mode_(is_host_accessible(device)) {}

  void run() {
    const size_t num_args = schema_.arguments().size();
    first_arg_ = stack_->size() - num_args;
    originals_.assign(stack_->begin() + first_arg_, stack_->end());
    if (g_trace_ops.load(std::memory_order_relaxed)) {
      std::cerr << "torch_hal: " << schema_.operator_name() << " on hal:" << static_cast<int>(device_)
                << (alias_mode_ ? " (CPU kernel in place)" : " (CPU fallback)") << std::endl;
    }
    if (!alias_mode_) {
      count_fallback(op_, device_);
      note_host_copies();
    } else {
      wait_for_current_stream(device_);
    }

    for (size_t i = 0; i < num_args; ++i) {
      auto& slot = (*stack_)[first_arg_ + i];
      slot = to_cpu_argument(i);
      if (writes(schema_.arguments()[i])) cpu_written_.emplace_back(i, slot);
    }
    {
      // In alias mode the kernel's own allocations (its outputs) land in hal memory, and the kernel is the
      // device's work (a profiler's span); in copy mode it is the host's, between the copies' spans.
      std::optional<OutputCaptureScope> capture;
      hal::DeviceSpan span;
      if (alias_mode_) {
        capture.emplace(device_);
        span = profiler::kernel_span(device_, [this] {
          const auto& name = schema_.operator_name();
          return profiler::short_op_name(name.name, name.overload_name);
        });
      }
      try {
        op_.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack_);
      } catch (...) {
        if (alias_mode_) release_grown_outputs();
        throw;
      }
      span.end();
    }
    write_back_mutated_arguments();
    const size_t num_returns = schema_.returns().size();
    const size_t first_return = stack_->size() - num_returns;
    for (size_t j = 0; j < num_returns; ++j) {
      auto& slot = (*stack_)[first_return + j];
      slot = to_hal_return(j, slot);
    }
  }

 private:
  // Copy mode: every hal tensor among the arguments, so that those sharing a storage get one host buffer.
  void note_host_copies() {
    auto note = [this](const c10::IValue& v) {
      if (v.isTensor() && is_hal(v.toTensor())) host_copies_.note(v.toTensor());
    };
    for (const c10::IValue& v : originals_) {
      if (v.isTensorList()) {
        for (const at::Tensor& t : v.toTensorList()) note(t);
      } else if (v.isList()) {
        for (const c10::IValue& e : v.toListRef()) note(e);
      } else {
        note(v);
      }
    }
  }

  c10::IValue to_cpu_tensor(const c10::IValue& v) {
    if (!v.isTensor() || !is_hal(v.toTensor())) return v;
    const auto& t = v.toTensor();
    if (!alias_mode_) return host_copies_.copy_of(t);
    auto alias = cpu_alias(t);
    links_.add(alias.storage().unsafeGetStorageImpl(), t.storage());
    return alias;
  }

  c10::IValue to_cpu_argument(size_t i) {
    const auto& arg = schema_.arguments()[i];
    const auto& v = originals_[i];
    if (takes_generator(arg)) {
      // ATen's CPU kernels draw from a CPU generator: the hal device's own (default or given) one.
      std::optional<at::Generator> gen;
      if (v.isGenerator()) gen = v.toGenerator();
      return cpu_generator_for(gen, device_);
    }
    if (v.isTensor()) return to_cpu_tensor(v);
    if (v.isTensorList()) {
      c10::List<at::Tensor> out;
      out.reserve(v.toTensorList().size());
      for (const at::Tensor& t : v.toTensorList()) out.push_back(to_cpu_tensor(t).toTensor());
      return out;
    }
    if (v.isList() && arg.type()->containedTypes().size() == 1 &&
        arg.type()->containedType(0)->kind() == c10::TypeKind::OptionalType) {
      c10::List<std::optional<at::Tensor>> out;
      for (const c10::IValue& e : v.toListRef()) {
        out.push_back(e.isTensor() ? std::optional<at::Tensor>(to_cpu_tensor(e).toTensor()) : std::nullopt);
      }
      return out;
    }
    if (v.isDevice() && v.toDevice().type() == kHal) return c10::Device(c10::DeviceType::CPU);
    return v;
  }

  static bool takes_generator(const c10::Argument& a) {
    const c10::TypePtr& type = a.type();
    if (type->kind() == c10::TypeKind::GeneratorType) return true;
    return type->kind() == c10::TypeKind::OptionalType &&
           type->castRaw<c10::OptionalType>()->getElementType()->kind() == c10::TypeKind::GeneratorType;
  }

  static bool writes(const c10::Argument& a) { return a.alias_info() != nullptr && a.alias_info()->isWrite(); }

  // In-place and out= arguments: in alias mode the kernel wrote the hal bytes already, unless it had to
  // resize (new memory, adopted here) or restride them; in copy mode the values are uploaded.
  void write_back_mutated_arguments() {
    for_each_written([this](const at::Tensor& hal, const at::Tensor& cpu) { sync_mutated(hal, cpu); });
  }

  // fn(hal tensor, the CPU tensor the kernel wrote in its place) for every in-place and out= tensor argument.
  template <class Fn>
  void for_each_written(Fn&& fn) {
    for (const auto& [i, cpu_arg] : cpu_written_) {
      if (originals_[i].isTensor()) fn(originals_[i].toTensor(), cpu_arg.toTensor());
      if (originals_[i].isTensorList()) {
        auto hal_list = originals_[i].toTensorList();
        auto cpu_list = cpu_arg.toTensorList();
        for (size_t k = 0; k < hal_list.size(); ++k) fn(hal_list[k], cpu_list[k]);
      }
    }
  }

  void sync_mutated(const at::Tensor& hal, const at::Tensor& cpu) {
    if (!is_hal(hal)) return;
    if (!alias_mode_) {
      if (hal.sizes() != cpu.sizes()) hal.resize_(cpu.sizes());
      upload(hal, cpu);
      return;
    }
    auto* cpu_storage = cpu.storage().unsafeGetStorageImpl();
    auto* impl = hal.unsafeGetTensorImpl();
    if (cpu_storage->data_ptr().get() != hal.storage().data_ptr().get()) {
      // The kernel resized an out= tensor: its new memory was captured; move it into the hal storage.
      TORCH_INTERNAL_ASSERT(holds_captured_memory(*cpu_storage), "hal: out= tensor reallocated outside capture");
      const size_t nbytes = cpu_storage->nbytes();
      auto* hal_storage = hal.storage().unsafeGetStorageImpl();
      hal_storage->set_data_ptr_noswap(take_captured_memory(*cpu_storage, device_));
      hal_storage->set_nbytes(nbytes);
    }
    if (hal.sizes() != cpu.sizes() || hal.strides() != cpu.strides() || hal.storage_offset() != cpu.storage_offset()) {
      impl->set_sizes_and_strides(cpu.sizes(), cpu.strides(), cpu.storage_offset());
    }
  }

  // The kernel raised after growing an out= alias (abs of bool, eye of uint16: the output is resized, then the
  // dtype refused): the alias's storage holds captured hal memory that no hal tensor will adopt. It goes back to
  // the caching allocator now, and the alias's storage describes the hal bytes again (aliases are kept for reuse).
  void release_grown_outputs() {
    auto release = [](const at::Tensor& hal, const at::Tensor& cpu) {
      if (!is_hal(hal)) return;
      auto* cpu_storage = cpu.storage().unsafeGetStorageImpl();
      const auto& hal_storage = hal.storage();
      if (cpu_storage->data_ptr().get() == hal_storage.data_ptr().get() || !holds_captured_memory(*cpu_storage)) return;
      cpu_storage->set_data_ptr_noswap(c10::DataPtr(const_cast<void*>(hal_storage.data_ptr().get()),
                                                    c10::Device(c10::DeviceType::CPU)));
      cpu_storage->set_nbytes(hal_storage.nbytes());
    };
    for_each_written(release);
  }

  c10::IValue to_hal_return(size_t j, const c10::IValue& v) {
    const auto& ret = schema_.returns()[j];
    if (ret.alias_info() != nullptr && ret.alias_info()->isWrite()) {
      // Returns `self` or `out`: hand back the caller's own hal tensor object.
      for (size_t i = 0; i < originals_.size(); ++i) {
        const auto* info = schema_.arguments()[i].alias_info();
        if (info != nullptr && info->beforeSets() == ret.alias_info()->beforeSets()) return originals_[i];
      }
    }
    if (v.isTensor()) return to_hal_tensor(v.toTensor(), ret.alias_info() != nullptr);
    if (v.isTensorList()) {
      c10::List<at::Tensor> out;
      for (const at::Tensor& t : v.toTensorList()) out.push_back(to_hal_tensor(t, ret.alias_info() != nullptr));
      return out;
    }
    return v;
  }

  at::Tensor to_hal_tensor(const at::Tensor& t, bool is_view) {
    if (alias_mode_) return adopt_cpu_result(t, device_, links_);
    if (!t.defined() || !t.device().is_cpu()) return t;
    TORCH_CHECK_NOT_IMPLEMENTED(!is_view, schema_.name(),
                                " returns a view of its input, which the CPU fallback cannot give on hal:",
                                static_cast<int>(device_), " (", torch_hal::device(device_).adapter->name(),
                                " adapter): the adapter needs a native kernel for it.");
    return new_hal_tensor_from(t, device_);
  }

  const c10::OperatorHandle& op_;
  const c10::FunctionSchema& schema_;
  Stack* stack_;
  c10::DeviceIndex device_;
  bool alias_mode_;
  size_t first_arg_ = 0;
  Stack originals_;
  c10::SmallVector<std::pair<size_t, c10::IValue>, 2> cpu_written_;  // in-place and out= arguments
  StorageLinks links_;  // argument aliases and adopted outputs
  HostCopies host_copies_;  // copy mode: the arguments' host copies
};

}  // namespace

void run_on_cpu_kernel(const c10::OperatorHandle& op, c10::DispatchKeySet, Stack* stack) {
  const auto& schema = op.schema();
  const size_t first = stack->size() - schema.arguments().size();
  auto scan = scan_devices(schema, *stack, first);
  const auto device = static_cast<c10::DeviceIndex>(scan.device >= 0 ? scan.device : current_device());
  CpuKernelCall(op, stack, device).run();
}

std::map<std::string, int64_t> fallback_stats() {
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  return g_fallback_counts;
}
void reset_fallback_stats() {
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  g_fallback_counts.clear();
}
bool strict_mode() { return g_strict.load(); }
bool trace_ops() { return g_trace_ops.load(std::memory_order_relaxed); }

void set_strict_mode(bool strict) { g_strict.store(strict); }

namespace {

// Reads TORCH_HAL_STRICT and TORCH_HAL_TRACE_OPS at import; throws hal::Error(BadConfig) for a bad value.
void read_op_path_switches() {
  g_strict.store(hal::env_flag("TORCH_HAL_STRICT", false));
  g_trace_ops.store(hal::env_flag("TORCH_HAL_TRACE_OPS", false));
}
// The first import check: before TORCH_HAL_BLOCKING_WAIT (20, distributed) and attention's limits (30, ops).
const ImportCheck kReadOpPathSwitches(10, &read_op_path_switches);

}  // namespace

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&run_on_cpu_kernel>());
}

// ATen's convolution chooses its implementation by device, and for PrivateUse1 it reaches
// convolution_overrideable and convolution_backward_overrideable: ops that no CPU kernel implements (CPU
// tensors never reach them), so the fallback above would have nothing to run there and nn.Conv2d would
// raise NotImplementedError on hal. The convolution ops above that choice run CPU's instead, by the same
// path as every op without a hal kernel: in place on host-accessible memory, else the counted fallback.
// convolution and convolution_backward try the adapter's kernels first (ops/convolution_ops.cpp), then
// take this same path.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  for (const char* name : {"_convolution"}) {
    native::impl_recorded(m, native::Route::CpuKernel, name,
                          torch::CppFunction::makeFromBoxedFunction<&run_on_cpu_kernel>());
  }
}

void route_structured_functional_ops_to_cpu_kernels() {
  // A structured op's functional form (add, mse_loss, ...) has a CPU kernel of its own, but a backend
  // without one gets CompositeExplicitAutogradNonFunctional: allocate the output from the meta shape, then
  // call the out= kernel. CPU's out= kernels do not always expect that (mse_loss and smooth_l1_loss warn
  // about resizing it), and it is a detour. So such ops run CPU's functional kernel, as CPU tensors do.
  static torch::Library library(torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1, __FILE__, __LINE__);
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    const auto op = dispatcher.findOp(name);
    if (!op.has_value() || name.name.rfind("aten::", 0) != 0) continue;
    if (op->hasKernelForDispatchKey(c10::DispatchKey::CPU) &&
        op->hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutogradNonFunctional) &&
        !op->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1)) {
      const std::string overload = name.name.substr(6) + (name.overload_name.empty() ? "" : "." + name.overload_name);
      native::impl_recorded(library, native::Route::CpuKernel, overload.c_str(),
                            torch::CppFunction::makeFromBoxedFunction<&run_on_cpu_kernel>());
    }
  }
}

}  // namespace torch_hal
