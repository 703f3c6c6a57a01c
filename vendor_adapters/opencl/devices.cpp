#include "devices.h"

#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "adapter_state.h"
#include "device_properties.h"
#include "../spirv_shell/device_properties.h"
#include "library_file_check.h"

namespace hal_opencl {
namespace {

enum class Choice { Gpus, Cpus, All, None };

bool parse_choice(std::string* error, Choice* choice) {
  const char* raw = std::getenv("TORCH_HAL_OPENCL_DEVICES");
  std::string v = raw != nullptr ? raw : "";
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v.empty() || v == "gpu") *choice = Choice::Gpus;
  else if (v == "cpu") *choice = Choice::Cpus;
  else if (v == "all") *choice = Choice::All;
  else if (v == "none") *choice = Choice::None;
  else {
    *error = std::string("TORCH_HAL_OPENCL_DEVICES='") + raw + "' is not a device choice: use gpu (the default), cpu, "
             "all or none";
    return false;
  }
  return true;
}

std::string text_info(const OpenClApi& cl, cl_device_id d, cl_uint what) {
  size_t size = 0;
  if (cl.GetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string s(size, '\0');
  if (cl.GetDeviceInfo(d, what, size, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
T value_info(const OpenClApi& cl, cl_device_id d, cl_uint what) {
  T v{};
  if (cl.GetDeviceInfo(d, what, sizeof(v), &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

std::string platform_text(const OpenClApi& cl, cl_platform_id p, cl_uint what) {
  char text[256] = {};
  cl.GetPlatformInfo(p, what, sizeof(text) - 1, text, nullptr);
  return text;
}

bool contains(const std::string& haystack, const char* needle) { return haystack.find(needle) != std::string::npos; }

// Whether the Level Zero adapter can serve Intel GPUs here: its loader (TORCH_HAL_LEVEL_ZERO_LIBRARY, else
// libze_loader.so.1) loads. Intel's GPU driver package carries the Level Zero driver beside the OpenCL one, so
// with the loader present the Intel adapter serves the GPU, and the OpenCL adapter must not list it a second time.
bool level_zero_loader_present() {
  static const bool present = [] {
    const char* named = std::getenv("TORCH_HAL_LEVEL_ZERO_LIBRARY");
    const std::string name = named && *named ? named : "libze_loader.so.1";
    if (!hal_library_check::configured_library_problem(name).empty()) return false;  // the Intel adapter says why
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle != nullptr) dlclose(handle);
    return handle != nullptr;
  }();
  return present;
}

// The GPU vendors whose GPUs have adapters of their own.
bool served_natively(const DeviceInfo& d) {
  const bool gpu = (d.type & CL_DEVICE_TYPE_GPU) != 0;
  if (!gpu) return false;
  if (contains(d.vendor, "NVIDIA") || contains(d.vendor, "Advanced Micro Devices") || d.vendor == "AMD") return true;
  return contains(d.vendor, "Intel") && level_zero_loader_present();
}

DeviceInfo read_device(const OpenClApi& cl, cl_platform_id platform, cl_device_id id) {
  DeviceInfo d;
  d.platform = platform;
  d.id = id;
  d.type = value_info<cl_bitfield>(cl, id, CL_DEVICE_TYPE);
  d.name = text_info(cl, id, CL_DEVICE_NAME);
  d.vendor = text_info(cl, id, CL_DEVICE_VENDOR);
  d.platform_name = platform_text(cl, platform, CL_PLATFORM_NAME);
  d.version = text_info(cl, id, CL_DEVICE_VERSION);
  d.memory_bytes = value_info<cl_ulong>(cl, id, CL_DEVICE_GLOBAL_MEM_SIZE);
  d.local_memory_bytes = value_info<cl_ulong>(cl, id, CL_DEVICE_LOCAL_MEM_SIZE);
  d.compute_units = value_info<cl_uint>(cl, id, CL_DEVICE_MAX_COMPUTE_UNITS);
  d.max_work_group_size = static_cast<uint32_t>(value_info<size_t>(cl, id, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  d.clock_mhz = value_info<cl_uint>(cl, id, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  const std::string extensions = text_info(cl, id, CL_DEVICE_EXTENSIONS);
  d.fp16 = contains(extensions, "cl_khr_fp16");
  d.fp64 = value_info<cl_bitfield>(cl, id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  if (contains(extensions, "cl_khr_pci_bus_info")) {
    const auto pci = value_info<ClPciBusInfo>(cl, id, CL_DEVICE_PCI_BUS_INFO_KHR);
    char text[32];
    std::snprintf(text, sizeof(text), "%04x:%02x:%02x.%x", pci.domain, pci.bus, pci.device, pci.function);
    d.pci_bus_id = text;
  }
  if (contains(extensions, "cl_khr_device_uuid")) {
    unsigned char u[16] = {};
    if (cl.GetDeviceInfo(id, CL_DEVICE_UUID_KHR, sizeof(u), u, nullptr) == CL_SUCCESS) {
      char text[40];
      std::snprintf(text, sizeof(text), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                    u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
      d.uuid = text;
    }
  }
  return d;
}

// Why the adapter cannot serve the device, or empty.
std::string unfit(const OpenClApi& cl, const DeviceInfo& d) {
  if (!contains(text_info(cl, d.id, CL_DEVICE_IL_VERSION), "SPIR-V")) return "takes no SPIR-V";
  if ((value_info<cl_bitfield>(cl, d.id, CL_DEVICE_SVM_CAPABILITIES) & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0) {
    return "has no shared virtual memory";
  }
  return {};
}

// Why the user's choice leaves the device out, or empty.
std::string not_chosen(const DeviceInfo& d, Choice choice) {
  const bool cpu = (d.type & CL_DEVICE_TYPE_CPU) != 0;
  switch (choice) {
    case Choice::All: return {};
    case Choice::None: return "TORCH_HAL_OPENCL_DEVICES=none";
    case Choice::Cpus: return cpu ? std::string() : "not a CPU (TORCH_HAL_OPENCL_DEVICES=cpu)";
    case Choice::Gpus:
      if (cpu) return "a CPU, which the host device serves (TORCH_HAL_OPENCL_DEVICES=cpu or all adds it)";
      if (served_natively(d)) return "a GPU that its vendor's adapter serves (TORCH_HAL_OPENCL_DEVICES=all adds it)";
      return {};
  }
  return {};
}

}  // namespace

Discovery discover_devices(const OpenClApi& cl) {
  Discovery out;
  Choice choice = Choice::Gpus;
  if (!parse_choice(&out.config_error, &choice)) return out;
  cl_uint platform_count = 0;
  if (cl.GetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS || platform_count == 0) {
    out.skipped = "no OpenCL platform (no ICD is installed, or OCL_ICD_VENDORS names none)";
    return out;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  cl.GetPlatformIDs(platform_count, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    if (cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> ids(n);
    cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      DeviceInfo d = read_device(cl, p, id);
      std::string why = unfit(cl, d);
      if (why.empty()) why = not_chosen(d, choice);
      if (why.empty()) {
        out.devices.push_back(std::move(d));
      } else {
        out.skipped += (out.skipped.empty() ? "" : "; ") + d.name + " (" + d.platform_name + "): " + why;
      }
    }
  }
  if (out.devices.empty() && out.skipped.empty()) out.skipped = "the OpenCL platforms have no device";
  return out;
}

namespace {

// The state of the devices discovered, kept in g_state where every device opened (released by ~State otherwise).
hal_status_t open_devices(const OpenClApi& api, Discovery discovery) {
  auto opened = std::make_unique<State>();
  State& state = *opened;
  state.cl = &api;
  for (DeviceInfo& info : discovery.devices) {
    auto d = std::make_unique<Device>();
    d->info = std::move(info);
    cl_int error = CL_SUCCESS;
    d->context = state.cl->CreateContext(nullptr, 1, &d->info.id, nullptr, nullptr, &error);
    if (error != CL_SUCCESS) return cl_fail(("clCreateContext for " + d->info.name).c_str(), error);
    state.devices.push_back(std::move(d));  // released by ~State from here on
    Device& added = *state.devices.back();
    added.default_queue = new_queue(*state.cl, added, &error);
    if (error != CL_SUCCESS) {
      return cl_fail(("clCreateCommandQueueWithProperties for " + added.info.name).c_str(), error);
    }
    added.kernels = std::make_unique<DeviceKernels>(*state.cl, added.context, added.info.id);
  }
  g_state = std::move(opened);
  return HAL_STATUS_SUCCESS;
}

}  // namespace

// ---- lifecycle (the shell's initialize and shutdown count the calls) -------------------------------

hal_status_t open_state() {
  std::string why;
  const OpenClApi* api = opencl_api(&why);
  if (api == nullptr) return fail(HAL_STATUS_UNAVAILABLE, why);
  Discovery discovery = discover_devices(*api);
  if (!discovery.config_error.empty()) return fail(HAL_STATUS_INVALID_ARGUMENT, discovery.config_error);
  if (discovery.devices.empty()) {
    return fail(HAL_STATUS_UNAVAILABLE, "no OpenCL device to serve: " + discovery.skipped);
  }
  return open_devices(*api, std::move(discovery));
}

void close_state() { g_state.reset(); }

// ---- discovery ---------------------------------------------------------------------------------

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  const DeviceInfo& info = dev(device).info;
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  std::snprintf(p.name, sizeof(p.name), "%s (OpenCL, %s)", info.name.c_str(), info.platform_name.c_str());
  // Not the silicon's vendor: the devices of this adapter are told apart from those other adapters serve.
  std::snprintf(p.vendor, sizeof(p.vendor), "opencl");
  const char* kind = (info.type & CL_DEVICE_TYPE_CPU)   ? "cpu"
                     : (info.type & CL_DEVICE_TYPE_GPU) ? "gpu"
                                                        : "accelerator";
  std::snprintf(p.arch_name, sizeof(p.arch_name), "opencl-%s", kind);
  hal_spirv_shell::set_common_properties(&p, {info.pci_bus_id, info.uuid, info.memory_bytes, info.compute_units,
                                              info.max_work_group_size, info.local_memory_bytes, info.clock_mhz});
  // Coarse-grained SVM: the host may touch it only between map and unmap, so the core copies, never
  // dereferences.
  p.flags = (info.fp16 ? HAL_DEVICE_FLAG_FP16 : 0u) | (info.fp64 ? HAL_DEVICE_FLAG_FP64 : 0u);
  return hal_adapter_support::answer_properties(p, props);
}

}  // namespace hal_opencl
