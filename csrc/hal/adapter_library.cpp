#include "hal/adapter_library.h"

#include <dlfcn.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>

#include "library_file_check.h"
#include "hal/error.h"

namespace hal {
namespace {

// The v1.0 table ends with its reserved slots; minor versions only append, so any 1.x table is at
// least this large. Written out rather than sizeof(hal_adapter_t) so that it stays the v1.0 size.
constexpr size_t kTableSizeV1_0 = offsetof(hal_adapter_t, reserved) + sizeof(void*) * 16;

std::string version_string(uint32_t v) {
  return std::to_string(HAL_ABI_MAJOR_OF(v)) + "." + std::to_string(HAL_ABI_MINOR_OF(v));
}

// dlopen of the same file twice returns the same library, hence the same table and the same global
// adapter state. initialize()/shutdown() are therefore counted per table here, so that a second
// AdapterLibrary on the same file (a test, a plugin registered twice) cannot shut the first one down.
std::mutex g_init_mutex;
std::map<const hal_adapter_t*, int>& init_counts() {
  static auto* counts = new std::map<const hal_adapter_t*, int>();  // leaked: used until process exit
  return *counts;
}

}  // namespace

const char* adapter_state_name(AdapterState state) {
  switch (state) {
    case AdapterState::Loaded: return "loaded";
    case AdapterState::Unavailable: return "unavailable";
    case AdapterState::Broken: return "broken";
  }
  return "unknown";
}

std::unique_ptr<AdapterLibrary> AdapterLibrary::open(const std::string& path) {
  std::unique_ptr<AdapterLibrary> lib(new AdapterLibrary());
  lib->path_ = path;
  lib->name_ = std::filesystem::path(path).stem().string();

  // A path with a '/' is the file dlopen will map: look at it first, since a truncated library kills the
  // process with SIGBUS inside dlopen. A bare name is searched for by dlopen itself.
  if (path.find('/') != std::string::npos) {
    const std::string problem = hal_library_check::elf_load_problem(path);
    if (!problem.empty()) {
      lib->reason_ = path + " cannot be loaded: the file " + problem +
                     ". Rebuild or copy the adapter library again, or remove it from TORCH_HAL_ADAPTERS / "
                     "the adapter folders";
      return lib;
    }
  }
  dlerror();  // clear any stale message so that the one we report is about this file
  // RTLD_LOCAL: two adapters may bundle different builds of the same helper library.
  lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) {
    const char* err = dlerror();
    lib->reason_ = path + " cannot be loaded: " + (err ? err : "dlopen failed");
    return lib;
  }
  dlerror();
  void* entry = dlsym(lib->handle_, HAL_ADAPTER_ENTRY_SYMBOL);
  if (!entry) {
    lib->reason_ = path + " is not a torch_hal adapter: it does not export " HAL_ADAPTER_ENTRY_SYMBOL;
    return lib;
  }
  auto query = reinterpret_cast<hal_adapter_query_fn>(entry);
  const hal_adapter_t* table = query(HAL_ABI_VERSION);
  if (!table) {
    lib->reason_ = path + ": " HAL_ADAPTER_ENTRY_SYMBOL "(" + version_string(HAL_ABI_VERSION) +
                   ") returned no table: the adapter cannot serve this torch_hal's ABI; rebuild it against "
                   "torch_hal's include/torch_hal/adapter.h";
    return lib;
  }
  lib->adopt_table(table);
  return lib;
}

std::unique_ptr<AdapterLibrary> AdapterLibrary::from_table(const hal_adapter_t* table, const std::string& origin,
                                                           std::shared_ptr<void> keep_alive) {
  std::unique_ptr<AdapterLibrary> lib(new AdapterLibrary());
  lib->path_ = origin;
  lib->name_ = origin;
  lib->keep_alive_ = std::move(keep_alive);
  if (!table) {
    lib->reason_ = origin + ": no adapter table given";
    return lib;
  }
  lib->adopt_table(table);
  return lib;
}

void AdapterLibrary::adopt_table(const hal_adapter_t* table) {
  abi_version_ = table->abi_version;
  if (table->name && *table->name) name_ = table->name;
  if (table->description) description_ = table->description;

  if (HAL_ABI_MAJOR_OF(table->abi_version) != HAL_ABI_VERSION_MAJOR) {
    reason_ = path_ + ": adapter ABI version " + version_string(table->abi_version) + ", but this torch_hal speaks " +
              version_string(HAL_ABI_VERSION) +
              ": rebuild the adapter against torch_hal's include/torch_hal/adapter.h";
    return;
  }
  if (table->struct_size < kTableSizeV1_0) {
    reason_ = path_ + ": adapter table is " + std::to_string(table->struct_size) + " bytes, smaller than the " +
              std::to_string(kTableSizeV1_0) + " bytes of an ABI 1.0 table: rebuild the adapter against "
              "torch_hal's include/torch_hal/adapter.h";
    return;
  }
  // Everything up to device_synchronize is required; only the kernel entry points are optional.
  struct Required {
    const char* name;
    bool present;
  };
#define HAL_REQUIRED(fn) Required{#fn, table->fn != nullptr}
  const Required required[] = {
      HAL_REQUIRED(initialize),        HAL_REQUIRED(shutdown),          HAL_REQUIRED(get_last_error),
      HAL_REQUIRED(device_count),      HAL_REQUIRED(get_device_properties), HAL_REQUIRED(get_memory_info),
      HAL_REQUIRED(malloc_device),     HAL_REQUIRED(free_device),       HAL_REQUIRED(malloc_host),
      HAL_REQUIRED(free_host),         HAL_REQUIRED(memset_async),      HAL_REQUIRED(memcpy_async),
      HAL_REQUIRED(memcpy_peer_async), HAL_REQUIRED(stream_create),     HAL_REQUIRED(stream_destroy),
      HAL_REQUIRED(stream_synchronize), HAL_REQUIRED(stream_query),     HAL_REQUIRED(stream_wait_event),
      HAL_REQUIRED(event_create),      HAL_REQUIRED(event_destroy),     HAL_REQUIRED(event_record),
      HAL_REQUIRED(event_query),       HAL_REQUIRED(event_synchronize), HAL_REQUIRED(event_elapsed_ms),
      HAL_REQUIRED(device_synchronize),
  };
#undef HAL_REQUIRED
  for (const Required& r : required) {
    if (!r.present) {
      reason_ = path_ + ": adapter '" + name_ + "' leaves the required function " + r.name +
                " NULL: the adapter is incomplete";
      return;
    }
  }
  table_ = table;
  initialize();
}

void AdapterLibrary::initialize() {
  const hal_adapter_t& t = *table_;
  hal_status_t status;
  {
    std::lock_guard<std::mutex> lock(g_init_mutex);
    int& count = init_counts()[table_];
    status = count > 0 ? HAL_STATUS_SUCCESS : t.initialize();
    if (status == HAL_STATUS_SUCCESS) ++count;
  }
  if (status == HAL_STATUS_UNAVAILABLE) {
    const char* why = t.get_last_error();
    state_ = AdapterState::Unavailable;
    reason_ = (why && *why) ? why : name_ + ": initialize() reported HAL_STATUS_UNAVAILABLE without a reason";
    return;
  }
  if (status != HAL_STATUS_SUCCESS) {
    const char* why = t.get_last_error();
    reason_ = path_ + ": initialize() failed: " + status_name(status) + (why && *why ? std::string(": ") + why : "");
    return;
  }
  int32_t count = 0;
  status = t.device_count(&count);
  if (status != HAL_STATUS_SUCCESS || count < 0) {
    const char* why = t.get_last_error();
    reason_ = path_ + ": device_count() failed: " + status_name(status) + (why && *why ? std::string(": ") + why : "");
    release_initialization();
    return;
  }
  device_count_ = count;
  state_ = AdapterState::Loaded;
}

void AdapterLibrary::release_initialization() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  auto it = init_counts().find(table_);
  if (it == init_counts().end()) return;
  if (--it->second == 0) {
    init_counts().erase(it);
    table_->shutdown();
  }
}

void AdapterLibrary::mark_unavailable(const std::string& reason) {
  if (state_ == AdapterState::Loaded) release_initialization();
  state_ = AdapterState::Unavailable;
  reason_ = reason;
  device_count_ = 0;
}

AdapterLibrary::~AdapterLibrary() {
  if (state_ == AdapterState::Loaded) release_initialization();
  keep_alive_.reset();  // after shutdown: the table may live inside what keep_alive holds
  if (handle_) dlclose(handle_);
}

}  // namespace hal
