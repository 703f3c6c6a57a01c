#include "code_objects.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace hal_amd {
namespace {

// A clang offload bundle: the magic, a count, then (offset, size, id length, id) per entry; ids of device
// code are "hipv4-amdgcn-amd-amdhsa--gfx90a" (older: "hip-amdgcn-..."), possibly with ":feature" suffixes.
constexpr char kBundleMagic[] = "__CLANG_OFFLOAD_BUNDLE__";

struct CodeObject {
  std::string arch;
  const char* data;
  size_t size;
};

struct Bundle {
  std::vector<CodeObject> code_objects;
  // HIP's NVIDIA platform (the test build that runs this adapter on NVIDIA GPUs, nvidia_platform/): nvcc's
  // fat binary, loaded whole (the driver picks the SASS or PTX it runs); code_objects then name its entries.
  const char* cuda_fatbin = nullptr;
  std::map<int, hipModule_t> modules;  // by device, once loaded
  std::map<int, std::string> archs;    // by device: the architecture whose code object loaded there
};

struct Kernel {
  Bundle* bundle;
  std::string name;
  std::map<int, hipFunction_t> functions;  // by device
};

uint64_t read_u64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// nvcc's fat binary: a 16-byte header (magic, version, header size, payload size), then entries, each with
// its kind (1 PTX, 2 SASS), header size, payload size and, 28 bytes in, the SM version it holds.
constexpr uint32_t kCudaFatbinMagic = 0xBA55ED50u;

uint32_t read_u32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

std::vector<CodeObject> parse_cuda_fatbin(const char* fatbin) {
  std::vector<CodeObject> out;
  const uint16_t header_size = static_cast<uint16_t>(read_u32(fatbin + 4) >> 16);
  const uint64_t payload_size = read_u64(fatbin + 8);
  for (uint64_t at = 0; at + 32 <= payload_size && out.size() < 64;) {
    const char* entry = fatbin + header_size + at;
    const uint16_t kind = static_cast<uint16_t>(read_u32(entry) & 0xFFFFu);
    const uint32_t entry_header = read_u32(entry + 4);
    const uint64_t entry_payload = read_u64(entry + 8);
    const uint32_t sm = read_u32(entry + 28);
    if (entry_header == 0) break;
    out.push_back(CodeObject{(kind == 1 ? "compute_" : "sm_") + std::to_string(sm), fatbin, 0});
    at += entry_header + entry_payload;
  }
  return out;
}

std::vector<CodeObject> parse_bundle(const char* bundle) {
  std::vector<CodeObject> out;
  if (std::memcmp(bundle, kBundleMagic, sizeof(kBundleMagic) - 1) != 0) return out;
  const char* p = bundle + sizeof(kBundleMagic) - 1;
  const uint64_t count = read_u64(p);
  p += 8;
  for (uint64_t i = 0; i < count && i < 64; ++i) {
    const uint64_t offset = read_u64(p), size = read_u64(p + 8), id_size = read_u64(p + 16);
    std::string id(p + 24, p + 24 + id_size);
    p += 24 + id_size;
    const auto gfx = id.find("--gfx");
    if (gfx == std::string::npos || size == 0) continue;  // the host entry
    std::string arch = id.substr(gfx + 2);
    arch = arch.substr(0, arch.find(':'));
    out.push_back(CodeObject{arch, bundle + offset, static_cast<size_t>(size)});
  }
  return out;
}

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Bundle>> bundles;
  std::map<const void*, Kernel> kernels;  // by host stub
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: objects unregister from atexit handlers
  return *r;
}

// The architectures every bundle has a code object for (caller holds r.mutex).
std::vector<std::string> architectures_locked(const Registry& r) {
  std::set<std::string> common;
  bool first = true;
  for (const auto& bundle : r.bundles) {
    std::set<std::string> here;
    for (const CodeObject& object : bundle->code_objects) here.insert(object.arch);
    if (first) {
      common = here;
      first = false;
    } else {
      std::set<std::string> both;
      std::set_intersection(common.begin(), common.end(), here.begin(), here.end(), std::inserter(both, both.end()));
      common = both;
    }
  }
  return {common.begin(), common.end()};
}

int attribute(const HipApi& api, int device, HipAttribute which) {
  int value = 0;
  return api.DeviceGetAttribute(&value, which, device) == hipSuccess ? value : 0;
}

// Loads the code object of `bundle` that `device`'s architecture runs; nullptr (and why) when none does.
hipModule_t module_for(const HipApi& api, Bundle& bundle, int device, std::string* why) {
  if (auto it = bundle.modules.find(device); it != bundle.modules.end()) return it->second;
  // A module belongs to the current device: load it on `device`, not on whichever is current.
  int current = -1;
  if (api.GetDevice(&current) != hipSuccess || current != device) (void)api.SetDevice(device);
  if (bundle.cuda_fatbin) {
    hipModule_t module = nullptr;
    const hipError_t error = api.ModuleLoadData(&module, bundle.cuda_fatbin);
    if (error == hipSuccess) {
      bundle.modules[device] = module;
      bundle.archs[device] = "sm_" + std::to_string(attribute(api, device, kAttrComputeCapabilityMajor)) +
                             std::to_string(attribute(api, device, kAttrComputeCapabilityMinor));
      return module;
    }
    if (why) *why = "GPU " + std::to_string(device) + " loads none of this build's CUDA code: " + hip_error_text(error);
    return nullptr;
  }
  for (const CodeObject& object : bundle.code_objects) {
    hipModule_t module = nullptr;
    if (api.ModuleLoadData(&module, object.data) == hipSuccess) {
      bundle.modules[device] = module;
      bundle.archs[device] = object.arch;
      return module;
    }
  }
  if (why) {
    std::string built;
    for (const std::string& arch : architectures_locked(registry())) built += (built.empty() ? "" : ", ") + arch;
    *why = "AMD GPU " + std::to_string(device) + " runs none of the architectures this adapter was built for (" +
           built + "): rebuild torch_hal with TORCH_HAL_AMD_ARCHS naming this GPU's gfx architecture";
  }
  return nullptr;
}

}  // namespace

void** register_bundle(const void* bundle) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto record = std::make_unique<Bundle>();
  const char* data = static_cast<const char*>(bundle);
  if (read_u32(data) == kCudaFatbinMagic) {
    record->cuda_fatbin = data;
    record->code_objects = parse_cuda_fatbin(data);
  } else {
    record->code_objects = parse_bundle(data);
  }
  r.bundles.push_back(std::move(record));
  return reinterpret_cast<void**>(r.bundles.back().get());
}

void register_kernel(void** handle, const void* stub, const char* device_name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.kernels[stub] = Kernel{reinterpret_cast<Bundle*>(handle), device_name, {}};
}

std::vector<std::string> embedded_architectures() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return architectures_locked(r);
}

std::string device_architecture(const HipApi& api, int device, std::string* why) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.bundles.empty()) {
    if (why) *why = "this AMD adapter holds no kernels (built without hipcc)";
    return {};
  }
  Bundle& bundle = *r.bundles.front();
  if (!module_for(api, bundle, device, why)) return {};
  return bundle.archs[device];
}

hipFunction_t kernel_function(const HipApi& api, const void* stub, int device, std::string* why) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.kernels.find(stub);
  if (it == r.kernels.end()) {
    if (why) *why = "kernel not registered with the AMD adapter";
    return nullptr;
  }
  Kernel& kernel = it->second;
  if (auto f = kernel.functions.find(device); f != kernel.functions.end()) return f->second;
  hipModule_t module = module_for(api, *kernel.bundle, device, why);
  if (!module) return nullptr;
  hipFunction_t function = nullptr;
  const hipError_t error = api.ModuleGetFunction(&function, module, kernel.name.c_str());
  if (error != hipSuccess) {
    if (why) *why = "hipModuleGetFunction(" + kernel.name + "): " + hip_error_text(error);
    return nullptr;
  }
  kernel.functions[device] = function;
  return function;
}

}  // namespace hal_amd
