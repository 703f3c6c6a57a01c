#include "ops.h"

#include "adapter_state.h"

#include <vector>

namespace hal_level_zero {
namespace {

// zeKernelSuggestGroupSize picks a group size that divides the global size it is given. For a count with no
// good divisor (a prime number of elements) that would be one work-item a group, so it is asked about the
// first dimension rounded up to a multiple of this; the kernels ignore the work-items past their range.
constexpr uint32_t kSuggestQuantum = 64;
constexpr size_t kSuggestCap = size_t{1} << 30;

uint32_t round_up(size_t n, uint32_t quantum) {
  return static_cast<uint32_t>((n + quantum - 1) / quantum * quantum);
}

uint32_t groups_for(size_t global, uint32_t group) { return static_cast<uint32_t>((global + group - 1) / group); }

}  // namespace

ze_module_handle_t DeviceKernels::module_of(hal_spirv::Module which, std::string* error) {
  auto& p = programs_[static_cast<int>(which)];
  if (p.first_use()) {
    const hal_spirv::SpirvModule bytes = hal_spirv::module_bytes(which);
    const std::string name = hal_spirv::module_name(which);
    if (bytes.size == 0) {
      p.error = hal_spirv::spirv_missing_reason();
    } else {
      ze_module_desc_t desc{};
      desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
      desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
      desc.inputSize = bytes.size;
      desc.pInputModule = bytes.bytes;
      desc.pBuildFlags = build_flags_.c_str();
      ze_module_handle_t module = nullptr;
      ze_module_build_log_handle_t log = nullptr;
      const ze_result_t r = ze_.zeModuleCreate(context_, device_, &desc, &module, &log);
      BuildLog owned_log(log, ze_.zeModuleBuildLogDestroy);
      if (r == ZE_RESULT_SUCCESS) {
        p.module = Module(module, ze_.zeModuleDestroy);
      } else {
        std::string text;
        size_t size = 0;
        if (log != nullptr && ze_.zeModuleBuildLogGetString(log, &size, nullptr) == ZE_RESULT_SUCCESS && size > 1) {
          text.resize(size);
          ze_.zeModuleBuildLogGetString(log, &size, text.data());
          text.resize(size - 1);
        }
        p.error = "zeModuleCreate of the " + name + " module failed: " + ze_result_name(r) +
                  (text.empty() ? std::string() : ": " + text);
        if (module != nullptr) ze_.zeModuleDestroy(module);
      }
    }
  }
  *error = p.error;
  return p.module.get();
}

ze_kernel_handle_t DeviceKernels::kernel_of(const hal_spirv::Launch& launch, std::string* error) {
  auto found = kernels_.find(launch.kernel);
  if (found != kernels_.end()) return found->second.get();
  ze_module_handle_t module = module_of(launch.module, error);
  if (module == nullptr) return nullptr;
  ze_kernel_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  desc.pKernelName = launch.kernel;
  ze_kernel_handle_t kernel = nullptr;
  if (ze_result_t r = ze_.zeKernelCreate(module, &desc, &kernel); r != ZE_RESULT_SUCCESS) {
    *error = std::string("zeKernelCreate ") + launch.kernel + ": " + ze_result_name(r);
    return nullptr;
  }
  kernels_.emplace(launch.kernel, Kernel(kernel, ze_.zeKernelDestroy));
  return kernel;
}

hal_status_t DeviceKernels::submit(Stream& stream, const hal_spirv::Launch& launch, std::string* error) {
  ze_kernel_handle_t kernel = kernel_of(launch, error);  // made by launch() already
  for (uint32_t i = 0; i < launch.args.size(); ++i) {
    const hal_spirv::KernelArg& a = launch.args[i];
    // A pointer argument is passed as the address of the pointer, as for any value of its size.
    const ze_result_t r = a.kind == hal_spirv::KernelArg::Kind::Pointer
                              ? ze_.zeKernelSetArgumentValue(kernel, i, sizeof(void*), &a.pointer)
                              : ze_.zeKernelSetArgumentValue(kernel, i, a.size, a.value);
    if (r != ZE_RESULT_SUCCESS) {
      return failed(std::string("zeKernelSetArgumentValue (") + launch.kernel + ", argument " + std::to_string(i) +
                        ")",
                    r, error);
    }
  }
  uint32_t group[3] = {1, 1, 1};
  if (launch.local[0] != 0) {
    for (uint32_t d = 0; d < launch.dims; ++d) group[d] = static_cast<uint32_t>(launch.local[d]);
  } else {
    // Past 2^30 work-items the suggestion is asked about 2^30, which the counts below still cover.
    const size_t first = launch.global[0] < kSuggestCap ? launch.global[0] : kSuggestCap;
    const uint32_t x = first >= kSuggestQuantum ? round_up(first, kSuggestQuantum) : static_cast<uint32_t>(first);
    const uint32_t y = launch.dims > 1 ? static_cast<uint32_t>(launch.global[1]) : 1;
    const uint32_t z = launch.dims > 2 ? static_cast<uint32_t>(launch.global[2]) : 1;
    if (ze_result_t r = ze_.zeKernelSuggestGroupSize(kernel, x, y, z, &group[0], &group[1], &group[2]);
        r != ZE_RESULT_SUCCESS) {
      return failed(std::string("zeKernelSuggestGroupSize (") + launch.kernel + ")", r, error);
    }
  }
  if (ze_result_t r = ze_.zeKernelSetGroupSize(kernel, group[0], group[1], group[2]); r != ZE_RESULT_SUCCESS) {
    return failed(std::string("zeKernelSetGroupSize (") + launch.kernel + ")", r, error);
  }
  // Whole groups: the last one may run past the global size, which the kernels check.
  ze_group_count_t count{groups_for(launch.global[0], group[0]), groups_for(launch.global[1], group[1]),
                         groups_for(launch.global[2], group[2])};
  return stream.append(
      "zeCommandListAppendLaunchKernel",
      [&](ze_command_list_handle_t list) {
        return ze_.zeCommandListAppendLaunchKernel(list, kernel, &count, nullptr, 0, nullptr);
      },
      error);
}

}  // namespace hal_level_zero
